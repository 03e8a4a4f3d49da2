package main

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hrefAttr finds the links of the manual's pages (DocBook output quotes
// every attribute with double quotes).
var hrefAttr = regexp.MustCompile(`href="([^"]*)"`)

// cutSite writes into dir a copy of the site at orig that holds only the
// first n HTML pages a breadth-first walk from index.html finds (links in
// document order), with every link to a page left out pointing at "#"
// instead, so that a crawler that follows every link fetches exactly
// those n pages. gyre stops at 1,000 pages, the manual has 1,169: without
// the cut wget would fetch 169 pages more than gyre. Other files (the
// stylesheet, three SVG figures) are copied as they are. The copy is
// made once per n and reused.
func cutSite(orig, dir string, n int) (root string, pages int, err error) {
	done := filepath.Join(dir, ".complete")
	if b, err := os.ReadFile(done); err == nil {
		if _, err := fmt.Sscanf(string(b), "%d", &pages); err == nil {
			return dir, pages, nil
		}
	}
	entries, err := os.ReadDir(orig)
	if err != nil {
		return "", 0, err
	}
	exists := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			exists[e.Name()] = true
		}
	}
	if !exists["index.html"] {
		return "", 0, fmt.Errorf("no index.html in %s", orig)
	}
	// target is the HTML file of the site a link points to, or "".
	target := func(href string) string {
		href, _, _ = strings.Cut(href, "#")
		href, _, _ = strings.Cut(href, "?")
		if href == "" || strings.Contains(href, ":") || strings.HasPrefix(href, "/") {
			return ""
		}
		name := path.Clean(href)
		if strings.HasSuffix(name, ".html") && exists[name] {
			return name
		}
		return ""
	}
	kept := map[string]bool{"index.html": true}
	queue := []string{"index.html"}
	bodies := map[string][]byte{}
	for i := 0; i < len(queue); i++ {
		b, err := os.ReadFile(filepath.Join(orig, queue[i]))
		if err != nil {
			return "", 0, err
		}
		bodies[queue[i]] = b
		for _, m := range hrefAttr.FindAllSubmatch(b, -1) {
			if t := target(string(m[1])); t != "" && !kept[t] && len(kept) < n {
				kept[t] = true
				queue = append(queue, t)
			}
		}
	}

	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return "", 0, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", 0, err
	}
	for name := range exists {
		var b []byte
		switch {
		case kept[name]:
			b = hrefAttr.ReplaceAllFunc(bodies[name], func(m []byte) []byte {
				href := string(m[len(`href="`) : len(m)-1])
				if t := target(href); t != "" && !kept[t] {
					return []byte(`href="#"`)
				}
				return m
			})
		case strings.HasSuffix(name, ".html"):
			continue // a page left out
		default:
			if b, err = os.ReadFile(filepath.Join(orig, name)); err != nil {
				return "", 0, err
			}
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return "", 0, err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(fmt.Sprintf("%d\n", len(kept))), 0o644); err != nil {
		return "", 0, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", 0, err
	}
	return dir, len(kept), nil
}

// served is what the file server answered one crawler.
type served struct {
	first, last time.Time       // the first request's arrival, the last response's end
	pages       map[string]bool // HTML pages answered 200 ("/" is /index.html)
	other       map[string]int  // every other request, "status path" → count
	// serverCPU is this process's user and system time from reset to take:
	// the file server's work for the crawler (nothing else runs here then).
	serverCPU float64
	// idleCPU is the machine's idle time (all cores, /proc/stat) from reset
	// to take: the cores that neither the crawler, the server nor anything
	// else used.
	idleCPU float64
}

// window is the time from the first request to the last response.
func (s served) window() time.Duration { return s.last.Sub(s.first) }

func (s served) otherCount() int {
	n := 0
	for _, c := range s.other {
		n += c
	}
	return n
}

// otherSummary lists the other requests, most frequent first.
func (s served) otherSummary() string {
	keys := slices.Collect(maps.Keys(s.other))
	sort.Slice(keys, func(a, b int) bool {
		if s.other[keys[a]] != s.other[keys[b]] {
			return s.other[keys[a]] > s.other[keys[b]]
		}
		return keys[a] < keys[b]
	})
	var parts []string
	for i, k := range keys {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		if c := s.other[k]; c > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, c))
		} else {
			parts = append(parts, k)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// setDiff describes how two sets of pages differ, a few names each way.
func setDiff(a, b map[string]bool) string {
	var onlyA, onlyB []string
	for k := range a {
		if !b[k] {
			onlyA = append(onlyA, k)
		}
	}
	for k := range b {
		if !a[k] {
			onlyB = append(onlyB, k)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return fmt.Sprintf("only wget: %d %v; only gyre: %d %v", len(onlyA), onlyA[:min(5, len(onlyA))], len(onlyB), onlyB[:min(5, len(onlyB))])
}

// requestLog records what the file server answers, one crawler at a time.
type requestLog struct {
	mu    sync.Mutex
	cur   served
	cpu0  float64 // selfCPU at reset
	idle0 float64 // machineIdle at reset
}

func (l *requestLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur = served{pages: map[string]bool{}, other: map[string]int{}}
	l.cpu0, l.idle0 = selfCPU(), machineIdle()
}

func (l *requestLog) take() served {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.cur
	s.serverCPU, s.idleCPU = selfCPU()-l.cpu0, machineIdle()-l.idle0
	l.cur = served{pages: map[string]bool{}, other: map[string]int{}}
	return s
}

// selfCPU is this process's user and system time so far, in seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		t1 := time.Now()
		p := r.URL.Path
		if strings.HasSuffix(p, "/") {
			p += "index.html"
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.cur.first.IsZero() || t0.Before(l.cur.first) {
			l.cur.first = t0
		}
		if t1.After(l.cur.last) {
			l.cur.last = t1
		}
		if sw.status == http.StatusOK && strings.HasSuffix(p, ".html") && !l.cur.pages[p] {
			l.cur.pages[p] = true
			return
		}
		l.cur.other[fmt.Sprintf("%d %s", sw.status, r.URL.Path)]++
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// machineIdle is the idle and I/O wait time of all the machine's cores
// since boot, in seconds (/proc/stat; 0 where it cannot be read).
func machineIdle() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0
	}
	var ticks float64
	for _, v := range f[4:6] { // idle, iowait
		n, _ := strconv.ParseFloat(v, 64)
		ticks += n
	}
	return ticks / 100 // USER_HZ
}
