// Command gyre measures the gyre (crawl) primitive against wget on a real
// static site served on 127.0.0.1: the PostgreSQL 15 manual as Debian ships
// it (postgresql-doc-15, 1,169 HTML pages), cut to the first -max-pages
// pages a breadth-first walk from index.html finds, so that gyre (at most
// 1,000 pages a crawl) and wget fetch the same pages. Both are timed the
// same way: as whole processes, and between the first request and the
// last response the server sees. wget only downloads; gyre also converts
// every page to markdown. See README.md.
//
//	go run ./bench/gyre [-cache DIR] [-max-pages 1000] [-workers 8] [-per-host 4] [-full] [-runs 5] [-versus BIN]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"webacq/internal/config"
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
	traceOut := flag.String("trace", "", "write the gyre child's execution trace (runtime/trace, from its first line to its report) here; read it with go tool trace")
	child := flag.String("child", "", "internal: crawl this URL in this process and report as JSON")
	versus := flag.String("versus", "", "a bench/gyre binary of another build (go build -o BIN ./bench/gyre at that commit): each run also crawls with its gyre child, the two taking turns, and the summary compares their pages per CPU-second")
	flag.Parse()

	if *child != "" {
		if err := runChild(*child, *maxPages, *workers, *perHost, *full, *cpuprofile, *memprofile, *traceOut); err != nil {
			fmt.Fprintln(os.Stderr, "gyre child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*cache, *maxPages, *workers, *perHost, *runs, *full, *cpuprofile, *memprofile, *traceOut, *versus); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gyre:", err)
		os.Exit(1)
	}
}

func run(cache string, maxPages, workers, perHost, runs int, full bool, cpuprofile, memprofile, traceOut, versus string) error {
	orig, err := ensureSite(cache)
	if err != nil {
		return err
	}
	if err := ensureWget(); err != nil {
		return err
	}
	root, pages, err := cutSite(orig, filepath.Join(cache, fmt.Sprintf("site-%d", maxPages)), maxPages)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	log := &requestLog{}
	srv := &http.Server{Handler: log.wrap(http.FileServer(http.Dir(root))), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	start := "http://" + ln.Addr().String() + "/index.html"
	fmt.Printf("site: %s (%d HTML pages: the first %d of the manual's breadth-first from index.html) at %s, GOMAXPROCS %d; this process's RSS %.1f MB\n",
		root, pages, pages, start, runtime.GOMAXPROCS(0), float64(procStatusKiB("VmRSS:"))/1024)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	var ratios, windowRatios, oldRatios, gPerCPU, wPerCPU []float64
	var gMaxRSS, wMaxRSS int64
	var vRatios, vPerCPU, cpuRatios, wallRatios []float64 // -versus
	var vMaxRSS int64
	for i := range runs {
		// wget and gyre take turns going first, so that a change of load
		// during the invocation falls on both alike.
		var w wgetResult
		var g gyreResult
		var wLog, gLog served
		loadBefore := loadAverage()
		runW := func() error {
			log.reset()
			var err error
			w, err = runWget(start)
			wLog = log.take()
			return err
		}
		runThis := func() error {
			log.reset()
			var err error
			g, err = runGyre(self, start, maxPages, workers, perHost, full, cpuprofile, memprofile, traceOut)
			gLog = log.take()
			return err
		}
		var v gyreResult
		var vLog served
		versusLine := ""
		runG := runThis
		if versus != "" {
			// The other build's child and this one's take turns too.
			runV := func() error {
				log.reset()
				var err error
				v, err = runGyre(versus, start, maxPages, workers, perHost, full, "", "", "")
				vLog = log.take()
				return err
			}
			runG = func() error {
				if (i/2)%2 == 0 {
					if err := runV(); err != nil {
						return err
					}
					return runThis()
				}
				if err := runThis(); err != nil {
					return err
				}
				return runV()
			}
		}
		if i%2 == 0 {
			if err = runW(); err == nil {
				err = runG()
			}
		} else {
			if err = runG(); err == nil {
				err = runW()
			}
		}
		if err != nil {
			return err
		}
		if versus != "" {
			if !maps.Equal(vLog.pages, gLog.pages) {
				return fmt.Errorf("run %d: -versus fetched %d HTML pages, this build %d; not the same set (%s)",
					i+1, len(vLog.pages), len(gLog.pages), setDiff(vLog.pages, gLog.pages))
			}
			n := float64(len(vLog.pages))
			vRatios = append(vRatios, (n/v.wall)/(n/w.seconds))
			vPerCPU = append(vPerCPU, n/v.cpu)
			cpuRatios = append(cpuRatios, g.cpu/v.cpu)
			wallRatios = append(wallRatios, g.wall/v.wall)
			vMaxRSS = max(vMaxRSS, v.VmHWMKiB)
			versusLine = fmt.Sprintf("  versus: run %d, -versus %s: process %.2f s, CPU %.2f s (%.0f pages per CPU-s), ratio to wget %.2f, peak RSS %.1f MB, %d pages, markdown %.1f MB; this build: process %.2f s (%.3f × the other's), CPU %.2f s, %.0f pages per CPU-s (%.3f × the other's CPU)\n",
				i+1, versus, v.wall, v.cpu, n/v.cpu, vRatios[len(vRatios)-1], float64(v.VmHWMKiB)/1024, v.Pages, float64(v.MarkdownBytes)/(1<<20),
				g.wall, g.wall/v.wall, g.cpu, float64(len(gLog.pages))/g.cpu, g.cpu/v.cpu)
		}
		// The same pages for both, or the comparison means nothing.
		if !maps.Equal(wLog.pages, gLog.pages) {
			return fmt.Errorf("run %d: wget fetched %d HTML pages, gyre %d; not the same set (%s)",
				i+1, len(wLog.pages), len(gLog.pages), setDiff(wLog.pages, gLog.pages))
		}
		n := float64(len(gLog.pages))
		wRate, gRate := n/w.seconds, n/g.wall
		ratios = append(ratios, gRate/wRate)
		windowRatios = append(windowRatios, wLog.window().Seconds()/gLog.window().Seconds())
		// The method before issue 20: gyre's clock started inside the
		// child after start-up, wget's around its whole process.
		oldRatios = append(oldRatios, w.seconds/g.Seconds)
		gPerCPU = append(gPerCPU, n/g.cpu)
		wPerCPU = append(wPerCPU, n/w.cpu)
		gMaxRSS, wMaxRSS = max(gMaxRSS, g.VmHWMKiB), max(wMaxRSS, w.maxRSSKiB)
		first := "wget"
		if i%2 == 1 {
			first = "gyre"
		}
		fmt.Printf("\nrun %d (%s first; load average %s before, %s after); both fetched the same %d HTML pages\n",
			i+1, first, loadBefore, loadAverage(), len(gLog.pages))
		fmt.Printf("  wget  : process %6.2f s = %7.1f pages/s; first request to last response %6.2f s; %d other requests (%s); %d files saved\n",
			w.seconds, wRate, wLog.window().Seconds(), wLog.otherCount(), wLog.otherSummary(), w.files)
		fmt.Printf("  gyre  : process %6.2f s = %7.1f pages/s; first request to last response %6.2f s; %d other requests (%s); crawl after start-up %.2f s\n",
			g.wall, gRate, gLog.window().Seconds(), gLog.otherCount(), gLog.otherSummary(), g.Seconds)
		fmt.Printf("          %d pages returned, %d errors, markdown %.1f MB, %d distinct titles\n",
			g.Pages, g.Errors, float64(g.MarkdownBytes)/(1<<20), g.DistinctTitles)
		fmt.Printf("  ratio : gyre/wget pages/s = %.2f (whole processes), %.2f (first request to last response); %.2f by the old, unequal method (gyre after its start-up)\n",
			gRate/wRate, windowRatios[len(windowRatios)-1], oldRatios[len(oldRatios)-1])
		fmt.Printf("  CPU   : wget %.2f s (%.0f pages per CPU-s), gyre %.2f s (%.0f pages per CPU-s); the file server's share is in neither: %.2f s while wget ran, %.2f s while gyre ran; the machine's cores idle %.2f s while wget ran, %.2f s while gyre ran\n",
			w.cpu, n/w.cpu, g.cpu, n/g.cpu, wLog.serverCPU, gLog.serverCPU, wLog.idleCPU, gLog.idleCPU)
		fmt.Printf("  peak RSS: wget %.1f MB (GNU time); gyre %.1f MB (its VmHWM; ru_maxrss %.1f MB, never below this process's); Go runtime at the end: %.0f MiB from the OS, heap %.0f MiB of which %.0f released, stacks %.1f MiB; %d collections, %.0f %% of its CPU\n",
			float64(w.maxRSSKiB)/1024, float64(g.VmHWMKiB)/1024, float64(g.maxRSSKiB)/1024, g.SysMiB, g.HeapSysMiB, g.HeapReleasedMiB, g.StackMiB, g.NumGC, 100*g.GCCPUFraction)
		for _, e := range g.FirstErrors {
			fmt.Printf("  gyre error: %s: %s\n", e.URL, e.Error)
		}
		fmt.Print(versusLine)
	}
	fmt.Printf("\n%d runs, the same %d pages each: median ratio gyre/wget %.2f (range %.2f–%.2f; target >= 0.70) as whole processes, %.2f (%.2f–%.2f) first request to last response "+
		"(old method %.2f); median pages per CPU-second gyre %.0f, wget %.0f; max peak RSS gyre %.1f MB (target < 120 MB), wget %.1f MB\n",
		runs, pages, median(ratios), slices.Min(ratios), slices.Max(ratios), median(windowRatios), slices.Min(windowRatios), slices.Max(windowRatios),
		median(oldRatios), median(gPerCPU), median(wPerCPU), float64(gMaxRSS)/1024, float64(wMaxRSS)/1024)
	if versus != "" {
		fmt.Printf("-versus %s, same runs: median pages per CPU-second %.0f (this build %.0f); median ratio to wget %.2f (this build %.2f); "+
			"median of the runs' CPU ratios this/other %.3f (range %.3f–%.3f), of their whole-process time ratios %.3f (range %.3f–%.3f); max peak RSS %.1f MB (this build %.1f MB)\n",
			versus, median(vPerCPU), median(gPerCPU), median(vRatios), median(ratios), median(cpuRatios), slices.Min(cpuRatios), slices.Max(cpuRatios),
			median(wallRatios), slices.Min(wallRatios), slices.Max(wallRatios),
			float64(vMaxRSS)/1024, float64(gMaxRSS)/1024)
	}
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

type wgetResult struct {
	files     int
	seconds   float64 // the whole process, wall clock
	cpu       float64 // user+system seconds of the process
	maxRSSKiB int64
}

// wgetDir is where wget's files go: /dev/shm when it is a writable
// directory, else the temporary directory.
func wgetDir() string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "webacq-probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return ""
}

func runWget(start string) (wgetResult, error) {
	// wget saves every page as a file; on a disk shared with other jobs
	// that made its time move 3x between invocations. A memory file
	// system, where there is one, keeps its side in memory as gyre's is.
	dir, err := os.MkdirTemp(wgetDir(), "webacq-bench-wget")
	if err != nil {
		return wgetResult{}, err
	}
	defer os.RemoveAll(dir)
	// A child of this process reports this process's resident size as its
	// ru_maxrss (Linux keeps the larger of the two across exec, and Go
	// starts children sharing its memory), so wget's own peak is taken by
	// GNU time, a small process in between, when it is installed.
	args := []string{"--recursive", "--level=inf", "--no-parent", "-q", "-P", dir, start}
	name, rssFile := "wget", filepath.Join(dir, "maxrss")
	timeCmd, timeErr := exec.LookPath("/usr/bin/time")
	if timeErr == nil {
		name, args = timeCmd, append([]string{"-q", "-f", "%M", "-o", rssFile, "wget"}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	err = cmd.Run()
	secs := time.Since(t0).Seconds()
	// wget exits 8 when some link answered an error (the manual links
	// one address as a file); what it fetched still counts.
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 8) {
		return wgetResult{}, fmt.Errorf("wget: %w", err)
	}
	r := wgetResult{seconds: secs, cpu: cpuSeconds(cmd.ProcessState)}
	if b, err := os.ReadFile(rssFile); err == nil {
		r.maxRSSKiB, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		_ = os.Remove(rssFile)
	}
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r.files++
		}
		return err
	})
	return r, err
}

type gyreResult struct {
	childReport
	wall      float64 // the whole child process, wall clock
	cpu       float64 // user+system seconds of the whole child, start-up included
	maxRSSKiB int64
}

// cpuSeconds is the user and system time of a finished process.
func cpuSeconds(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// maxRSS is the peak resident set size of a finished process, in KiB.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss // KiB on Linux
	}
	return 0
}

// runGyre crawls in a child process, so that its peak RSS is the crawl's
// and its time, like wget's, is the whole process's.
func runGyre(self, start string, maxPages, workers, perHost int, full bool, cpuprofile, memprofile, traceOut string) (gyreResult, error) {
	args := []string{"-child", start, "-max-pages", strconv.Itoa(maxPages),
		"-workers", strconv.Itoa(workers), "-per-host", strconv.Itoa(perHost), "-full=" + strconv.FormatBool(full)}
	if cpuprofile != "" {
		args = append(args, "-cpuprofile", cpuprofile)
	}
	if memprofile != "" {
		args = append(args, "-memprofile", memprofile)
	}
	if traceOut != "" {
		args = append(args, "-trace", traceOut)
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	out, err := cmd.Output()
	wall := time.Since(t0).Seconds()
	if err != nil {
		return gyreResult{}, fmt.Errorf("gyre child: %w", err)
	}
	r := gyreResult{wall: wall, cpu: cpuSeconds(cmd.ProcessState), maxRSSKiB: maxRSS(cmd.ProcessState)}
	if err := json.Unmarshal(out, &r.childReport); err != nil {
		return gyreResult{}, fmt.Errorf("gyre child output: %w", err)
	}
	return r, nil
}

func runChild(start string, maxPages, workers, perHost int, full bool, cpuprofile, memprofile, traceOut string) error {
	if traceOut != "" {
		f, err := os.Create(traceOut)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return err
		}
		defer trace.Stop()
	}
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
	// The runtime's memory settings of a node (webacq serve, worker and
	// gyre): soft limit at 60 % of WEBACQ_MEMORY_BUDGET (1 GiB unless
	// set), GOGC 200, the environment's GOMEMLIMIT and GOGC winning.
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	config.TuneRuntime(cfg.MemoryBudget, os.Getenv)
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
func vmHWM() int64 { return procStatusKiB("VmHWM:") }

// procStatusKiB reads one size field of /proc/self/status, in KiB.
func procStatusKiB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
