// Command gyre measures the gyre (crawl) primitive against wget on a real
// static site served on 127.0.0.1: the PostgreSQL 15 manual as Debian ships
// it (postgresql-doc-15, about 1,170 HTML pages). wget only downloads; gyre
// also converts every page to markdown. See README.md.
//
//	go run ./bench/gyre [-cache DIR] [-max-pages 1000] [-workers 8] [-per-host 4] [-full] [-runs 5]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"webacq/internal/fetch"
	"webacq/internal/primitive"
)

const docPath = "usr/share/doc/postgresql-doc-15/html"

// childReport is what the gyre child prints on stdout.
type childReport struct {
	Pages, Errors  int
	MarkdownBytes  int64
	Seconds        float64
	VmHWMKiB       int64
	GoMaxProcs     int
	FirstErrors    []primitive.GyreError
	ProgressCalls  int
	DistinctTitles int
	// The Go runtime's memory at the end of the crawl, in MiB, and its
	// collections.
	SysMiB, HeapSysMiB, HeapReleasedMiB, StackMiB float64
	NumGC                                         uint32
	GCCPUFraction                                 float64
}

func main() {
	cache := flag.String("cache", filepath.Join(os.TempDir(), "webacq-bench-gyre"), "where the Debian package is downloaded and unpacked")
	maxPages := flag.Int("max-pages", 1000, "gyre maxPages")
	workers := flag.Int("workers", primitive.DefaultGyreWorkers, "gyre workers (pages at once)")
	perHost := flag.Int("per-host", primitive.DefaultGyrePerHost, "gyre requests at once per host")
	runs := flag.Int("runs", 5, "how many times to run each crawler, taking turns; the summary is the median")
	cpuprofile := flag.String("cpuprofile", "", "write the gyre child's CPU profile here")
	full := flag.Bool("full", false, "gyre converts whole pages (onlyMainContent=false) instead of the main content")
	memprofile := flag.String("memprofile", "", "write the gyre child's heap profile (after the crawl, result still held) here")
	child := flag.String("child", "", "internal: crawl this URL in this process and report as JSON")
	flag.Parse()

	if *child != "" {
		if err := runChild(*child, *maxPages, *workers, *perHost, *full, *cpuprofile, *memprofile); err != nil {
			fmt.Fprintln(os.Stderr, "gyre child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*cache, *maxPages, *workers, *perHost, *runs, *full, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gyre:", err)
		os.Exit(1)
	}
}

func run(cache string, maxPages, workers, perHost, runs int, full bool, cpuprofile string) error {
	root, err := ensureSite(cache)
	if err != nil {
		return err
	}
	if err := ensureWget(); err != nil {
		return err
	}
	htmlFiles, err := countHTML(root)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(root)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	start := "http://" + ln.Addr().String() + "/index.html"
	fmt.Printf("site: %s (%d HTML files) at %s, GOMAXPROCS %d\n", root, htmlFiles, start, runtime.GOMAXPROCS(0))

	self, err := os.Executable()
	if err != nil {
		return err
	}
	var ratios, perCPU []float64
	var maxRSS int64
	for i := range runs {
		// wget and gyre take turns going first, so that a change of load
		// during the invocation falls on both alike.
		var w wgetResult
		var g gyreResult
		loadBefore := loadAverage()
		if i%2 == 0 {
			if w, err = runWget(start); err == nil {
				g, err = runGyre(self, start, maxPages, workers, perHost, full, cpuprofile)
			}
		} else {
			if g, err = runGyre(self, start, maxPages, workers, perHost, full, cpuprofile); err == nil {
				w, err = runWget(start)
			}
		}
		if err != nil {
			return err
		}
		wRate := float64(w.pages) / w.seconds
		gRate := float64(g.Pages) / g.Seconds
		ratios = append(ratios, gRate/wRate)
		perCPU = append(perCPU, float64(g.Pages)/g.cpu)
		maxRSS = max(maxRSS, g.maxRSSKiB)
		first := "wget"
		if i%2 == 1 {
			first = "gyre"
		}
		fmt.Printf("\nrun %d (%s first; load average %s before, %s after)\n", i+1, first, loadBefore, loadAverage())
		fmt.Printf("  wget  : %4d HTML pages (%d files) in %6.2f s = %7.1f pages/s (download only)\n", w.pages, w.files, w.seconds, wRate)
		fmt.Printf("  gyre  : %4d pages, %d errors in %6.2f s = %7.1f pages/s (markdown %.1f MB, %d distinct titles)\n",
			g.Pages, g.Errors, g.Seconds, gRate, float64(g.MarkdownBytes)/(1<<20), g.DistinctTitles)
		fmt.Printf("  ratio : gyre/wget = %.2f\n", gRate/wRate)
		fmt.Printf("  CPU   : wget %.2f s, gyre %.2f s (%.0f pages per CPU-second; the file server's share is in neither)\n",
			w.cpu, g.cpu, float64(g.Pages)/g.cpu)
		fmt.Printf("  gyre peak RSS: %.1f MB (VmHWM %.1f MB; Go runtime at the end: %.0f MiB from the OS, heap %.0f MiB of which %.0f released, stacks %.1f MiB; %d collections, %.0f %% of its CPU)\n",
			float64(g.maxRSSKiB)/1024, float64(g.VmHWMKiB)/1024, g.SysMiB, g.HeapSysMiB, g.HeapReleasedMiB, g.StackMiB, g.NumGC, 100*g.GCCPUFraction)
		for _, e := range g.FirstErrors {
			fmt.Printf("  gyre error: %s: %s\n", e.URL, e.Error)
		}
	}
	fmt.Printf("\n%d runs: median ratio gyre/wget %.2f (range %.2f–%.2f; target >= 0.70), median %.0f gyre pages per CPU-second, max gyre peak RSS %.1f MB (target < 120 MB)\n",
		runs, median(ratios), slices.Min(ratios), slices.Max(ratios), median(perCPU), float64(maxRSS)/1024)
	return nil
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ensureSite unpacks postgresql-doc-15 under cache unless it is there.
func ensureSite(cache string) (string, error) {
	root := filepath.Join(cache, "root", docPath)
	if _, err := os.Stat(filepath.Join(root, "index.html")); err == nil {
		return root, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	debs, _ := filepath.Glob(filepath.Join(cache, "postgresql-doc-15_*.deb"))
	if len(debs) == 0 {
		fmt.Println("downloading postgresql-doc-15 with apt-get download …")
		if err := command(cache, "apt-get", "download", "postgresql-doc-15"); err != nil {
			return "", fmt.Errorf("apt-get download postgresql-doc-15: %w", err)
		}
		debs, _ = filepath.Glob(filepath.Join(cache, "postgresql-doc-15_*.deb"))
		if len(debs) == 0 {
			return "", fmt.Errorf("apt-get download left no postgresql-doc-15 package in %s", cache)
		}
	}
	if err := command(cache, "dpkg", "-x", debs[0], filepath.Join(cache, "root")); err != nil {
		return "", fmt.Errorf("dpkg -x: %w", err)
	}
	if _, err := os.Stat(filepath.Join(root, "index.html")); err != nil {
		return "", fmt.Errorf("the package has no %s/index.html", docPath)
	}
	return root, nil
}

func ensureWget() error {
	if _, err := exec.LookPath("wget"); err == nil {
		return nil
	}
	fmt.Println("installing wget with apt-get …")
	return command("", "apt-get", "install", "-y", "-q", "wget")
}

func command(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func countHTML(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".html") {
			n++
		}
		return err
	})
	return n, err
}

type wgetResult struct {
	pages, files int
	seconds, cpu float64
}

func runWget(start string) (wgetResult, error) {
	dir, err := os.MkdirTemp("", "webacq-bench-wget")
	if err != nil {
		return wgetResult{}, err
	}
	defer os.RemoveAll(dir)
	t0 := time.Now()
	cmd := exec.Command("wget", "--recursive", "--level=inf", "--no-parent", "-q", "-P", dir, start)
	cmd.Stderr = os.Stderr
	err = cmd.Run()
	secs := time.Since(t0).Seconds()
	// wget exits 8 when some link answered an error (the manual has none
	// today); what it fetched still counts.
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 8) {
		return wgetResult{}, fmt.Errorf("wget: %w", err)
	}
	r := wgetResult{seconds: secs, cpu: cpuSeconds(cmd.ProcessState)}
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r.files++
			if strings.HasSuffix(d.Name(), ".html") {
				r.pages++
			}
		}
		return err
	})
	return r, err
}

type gyreResult struct {
	childReport
	maxRSSKiB int64
	cpu       float64 // user+system seconds of the whole child, start-up included
}

// cpuSeconds is the user and system time of a finished process.
func cpuSeconds(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// runGyre crawls in a child process, so that its peak RSS is the crawl's.
func runGyre(self, start string, maxPages, workers, perHost int, full bool, cpuprofile string) (gyreResult, error) {
	args := []string{"-child", start, "-max-pages", strconv.Itoa(maxPages),
		"-workers", strconv.Itoa(workers), "-per-host", strconv.Itoa(perHost), "-full=" + strconv.FormatBool(full)}
	if cpuprofile != "" {
		args = append(args, "-cpuprofile", cpuprofile)
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return gyreResult{}, fmt.Errorf("gyre child: %w", err)
	}
	var r gyreResult
	if err := json.Unmarshal(out, &r.childReport); err != nil {
		return gyreResult{}, fmt.Errorf("gyre child output: %w", err)
	}
	r.cpu = cpuSeconds(cmd.ProcessState)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKiB = ru.Maxrss // KiB on Linux
	}
	return r, nil
}

func runChild(start string, maxPages, workers, perHost int, full bool, cpuprofile, memprofile string) error {
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	svc := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), UserAgent: "webacq"}
	req := primitive.GyreRequest{
		URL: start, MaxPages: &maxPages,
		MaxDepth: ptr(primitive.GyreMaxDepth), Timeout: ptr(primitive.GyreMaxTimeout),
		Tier: primitive.TierHTTP, OnlyMainContent: ptr(!full),
	}
	calls := 0
	t0 := time.Now()
	res, err := svc.GyreWith(context.Background(), "", req, primitive.GyreOptions{Workers: workers, PerHost: perHost},
		func(done, total int) { calls++ })
	if err != nil {
		return err
	}
	rep := childReport{
		Pages: len(res.Pages), Errors: len(res.Errors), Seconds: time.Since(t0).Seconds(),
		GoMaxProcs: runtime.GOMAXPROCS(0), ProgressCalls: calls, VmHWMKiB: vmHWM(),
	}
	titles := make(map[string]bool)
	for _, p := range res.Pages {
		rep.MarkdownBytes += int64(len(p.Markdown))
		titles[p.Title] = true
	}
	rep.DistinctTitles = len(titles)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.SysMiB, rep.HeapSysMiB, rep.HeapReleasedMiB = float64(ms.Sys)/(1<<20), float64(ms.HeapSys)/(1<<20), float64(ms.HeapReleased)/(1<<20)
	rep.StackMiB, rep.NumGC, rep.GCCPUFraction = float64(ms.StackSys)/(1<<20), ms.NumGC, ms.GCCPUFraction
	rep.FirstErrors = res.Errors[:min(len(res.Errors), 5)]
	if memprofile != "" {
		f, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			return err
		}
		runtime.KeepAlive(res)
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

func ptr[T any](v T) *T { return &v }

// vmHWM reads the process's peak resident set size from /proc.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
