// Command sitehash converts the pages of bench/gyre's cut site (the
// PostgreSQL manual's first 1,000 pages, made by a run of bench/gyre) as
// the crawl does: content.HTML with the main content and links, then
// content.Classify. It prints one line per page: its name and a hash of
// everything the two return (markdown, text, links, metadata, page type,
// confidence, both models' inputs and the verdict). Two builds that print
// the same lines gave the crawl the same output on every page; the
// corpora's check is bench/content/outhash. With -every N it converts
// every Nth page only, a repeatable workload for valgrind's callgrind
// (compare instruction counts between builds of this same driver), and
// -allocs prints what the process allocated.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"

	"webacq/internal/content"
)

func main() {
	site := flag.String("site", filepath.Join(os.TempDir(), "webacq-bench-gyre", "site-1000"), "the cut site (bench/gyre's -cache/site-1000)")
	every := flag.Int("every", 1, "convert every Nth page only")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here")
	memprofile := flag.String("memprofile", "", "write an allocation profile (every allocation sampled) here")
	allocs := flag.Bool("allocs", false, "print to stderr what the process allocated (runtime.MemStats: bytes, objects, collections); with GOGC=off the same build prints the same figures every run")
	textDate := flag.Bool("textdate", false, "switch date2's text-date rule on (as bench/content -textdate)")
	flag.Parse()
	content.SetTextDate(*textDate)
	if *memprofile != "" {
		runtime.MemProfileRate = 1
		defer func() {
			f, err := os.Create(*memprofile)
			if err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	names, err := filepath.Glob(filepath.Join(*site, "*.html"))
	if err != nil || len(names) == 0 {
		fmt.Fprintln(os.Stderr, "no pages under", *site, err)
		os.Exit(1)
	}
	slices.Sort(names)
	for i, name := range names {
		if i%*every != 0 {
			continue
		}
		body, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		base := filepath.Base(name)
		doc, err := content.HTML(body, "http://127.0.0.1/"+base, content.Options{OnlyMainContent: true, IncludeLinks: true})
		h := sha256.New()
		if err != nil {
			fmt.Fprintf(h, "error %v", err)
		} else {
			b, _ := json.Marshal(doc)
			h.Write(b)
			fmt.Fprintf(h, "\x00%v\x00%v\x00%s", doc.TypeFeatures(), doc.ConfidenceFeatures(), content.Classify(200, body, doc))
		}
		fmt.Printf("%s %x\n", base, h.Sum(nil)[:8])
	}
	if *allocs {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(os.Stderr, "allocated %d bytes in %d objects, %d collections\n", ms.TotalAlloc, ms.Mallocs, ms.NumGC)
	}
}
