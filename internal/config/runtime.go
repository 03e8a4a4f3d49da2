package config

import "runtime/debug"

// GCPercent is the collector's target (GOGC) that TuneRuntime sets: a
// collection starts when the heap has grown by twice what the last one
// left live, instead of the runtime's default of once (100). A crawl's
// live heap is small (the 1,000 pages of bench/gyre: under 30 MB, peak RSS
// 49 MB at 100, 63 MB at 200) and it allocates 650 KB a page, so half the
// collections took 8–11 % of its CPU (bench/gyre/README.md, crawlI); the
// soft memory limit bounds the heap however much garbage there is.
const GCPercent = 200

// TuneRuntime sets the Go runtime's memory settings for a node of the
// given memory budget: the soft memory limit at 60 % of it, so that the
// collector works harder as the heap nears it instead of letting garbage
// grow the heap further (the rest is for memory outside the Go heap:
// SQLite's page cache and full-text indexing, pipes to the browser and to
// pdftotext, and the collector's overshoot), and GOGC at GCPercent. An
// operator's own GOMEMLIMIT or GOGC wins over each.
func TuneRuntime(budget int64, getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(budget / 5 * 3)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
