// Command detect measures the change detection of monitors
// (internal/monitor/detect) on real pages: each page of the corpus is
// anchored twice (without keywords, on its main content, and with a
// keyword taken from that content), then versions of it with noise,
// material changes, cosmetic restructures and removals are relocated and
// compared. See README.md.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"

	"webacq/internal/monitor/detect"
)

// page is one corpus page.
type page struct {
	name  string
	url   string
	body  []byte
	group string // the wcxb-dev page type, else the corpus
}

func main() {
	corpus := flag.String("corpus", "../shared/corpus", "corpus folder (edgar-ir, readability, trafilatura-eval, wcxb-dev)")
	sample := flag.Int("sample", 0, "use every n-th page only (0: all)")
	wcxbSample := flag.Int("wcxb-sample", 5, "use every n-th page of wcxb-dev of each page type (1: all)")
	workers := flag.Int("workers", 2, "pages processed at once")
	verbose := flag.Bool("v", false, "list every miss")
	only := flag.String("page", "", "run one page (its name as listed with -v)")
	flag.Parse()

	all, err := load(*corpus, max(1, *wcxbSample))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	index := make(map[string]int)
	for i, p := range all {
		index[p.name] = i
	}
	pages := all
	if *sample > 1 {
		var kept []page
		for i := 0; i < len(pages); i += *sample {
			kept = append(kept, pages[i])
		}
		pages = kept
	}
	if *only != "" {
		var kept []page
		for _, p := range pages {
			if p.name == *only {
				kept = append(kept, p)
			}
		}
		pages = kept
	}
	if len(pages) == 0 {
		fmt.Fprintln(os.Stderr, "no pages")
		os.Exit(1)
	}

	start := time.Now()
	results := make([]pageResult, len(pages))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, *workers) {
		wg.Go(func() {
			for i := range next {
				// The unrelated content replacing a region comes from
				// another page of the corpus.
				other := all[(index[pages[i].name]+len(all)/2+1)%len(all)]
				results[i] = run(pages[i], other)
			}
		})
	}
	for i := range pages {
		next <- i
	}
	close(next)
	wg.Wait()
	report(os.Stdout, results, time.Since(start), *verbose)
}

// load reads the corpus pages in a fixed order; of wcxb-dev, every
// wcxbEvery-th page of each page type.
func load(dir string, wcxbEvery int) ([]page, error) {
	var pages []page
	add := func(pattern, url string, name func(string) string) error {
		files, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if !utf8.Valid(b) {
				// The few pages that are not UTF-8 are windows-1252.
				if d, err := charmap.Windows1252.NewDecoder().Bytes(b); err == nil {
					b = d
				} else {
					b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
				}
			}
			n := name(f)
			pages = append(pages, page{name: n, url: url, body: b, group: strings.SplitN(n, "/", 2)[0]})
		}
		return nil
	}
	base := filepath.Base
	if err := add("edgar-ir/*.html", "https://www.sec.gov/Archives/edgar/data/1/0001.htm", func(f string) string { return "edgar-ir/" + base(f) }); err != nil {
		return nil, err
	}
	if err := add("readability/test-pages/*/source.html", "http://fakehost/test/page.html", func(f string) string {
		return "readability/" + base(filepath.Dir(f))
	}); err != nil {
		return nil, err
	}
	if err := add("trafilatura-eval/pages/*.html", "https://example.com/article.html", func(f string) string { return "trafilatura/" + base(f) }); err != nil {
		return nil, err
	}
	wcxb, err := loadWCXB(filepath.Join(dir, "wcxb-dev"), wcxbEvery)
	if err != nil {
		return nil, err
	}
	pages = append(pages, wcxb...)
	if len(pages) == 0 {
		return nil, fmt.Errorf("no pages under %s", dir)
	}
	return pages, nil
}

// loadWCXB reads the wcxb-dev pages (gzip), each with its URL and page
// type from its ground truth, keeping every n-th of each type in file
// order.
func loadWCXB(dir string, every int) ([]page, error) {
	files, err := filepath.Glob(filepath.Join(dir, "html", "*.html.gz"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	seen := make(map[string]int)
	var pages []page
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".html.gz")
		gt, err := os.ReadFile(filepath.Join(dir, "ground-truth", id+".json"))
		if err != nil {
			continue
		}
		var meta struct {
			URL      string `json:"url"`
			Internal struct {
				PageType struct {
					Primary string `json:"primary"`
				} `json:"page_type"`
			} `json:"_internal"`
		}
		if json.Unmarshal(gt, &meta) != nil || meta.Internal.PageType.Primary == "" {
			continue
		}
		kind := meta.Internal.PageType.Primary
		seen[kind]++
		if (seen[kind]-1)%every != 0 {
			continue
		}
		zf, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(zf)
		if err != nil {
			zf.Close()
			continue
		}
		b, err := io.ReadAll(zr)
		zf.Close()
		if err != nil {
			continue
		}
		if !utf8.Valid(b) {
			b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
		}
		url := meta.URL
		if url == "" {
			url = "https://example.com/page.html"
		}
		pages = append(pages, page{name: "wcxb/" + id, url: url, body: b, group: kind})
	}
	return pages, nil
}

// outcome is what one monitor saw on one version of a page.
type outcome struct {
	class, mutation string
	keywords        bool
	score           float64
	lost            bool // the region was not found (relocation_failed)
	gone            bool // no keyword on the page (an error run)
	changed         bool
	material        bool
	pdf             bool // the inserted PDF link is among PDFLinks
	relocate        time.Duration
	compare         time.Duration
	signals         []detect.Signal
	skipped         string // why the mutation does not apply to this page
}

// pageResult is everything measured on one page.
type pageResult struct {
	name     string
	group    string
	keyword  string
	err      string
	anchor   time.Duration // without keywords
	anchorKw time.Duration
	outcomes []outcome
}

// monitor is one anchored monitor of the experiment.
type monitor struct {
	keywords []string
	fp       *detect.Fingerprint
	mark     string // attribute marking its region root in the base page
}

const (
	markMain    = "data-bench-main"
	markKeyword = "data-bench-keyword"
)

// run anchors the page's monitors and measures every mutation.
func run(pg, other page) pageResult {
	res := pageResult{name: pg.name, group: pg.group}
	base, keyword, err := prepare(pg)
	if err != nil {
		res.err = err.Error()
		return res
	}
	res.keyword = keyword

	// Anchor both monitors on the base page, as their first run would.
	var mons []monitor
	for _, kw := range [][]string{nil, {keyword}} {
		if kw != nil && keyword == "" {
			continue
		}
		doc := mustParse(base)
		t0 := time.Now()
		r, err := detect.Anchor(doc, pg.url, kw)
		d := time.Since(t0)
		if err != nil {
			res.err = fmt.Sprintf("anchor %v: %v", kw, err)
			return res
		}
		m := monitor{kw, r.Fingerprint, markMain}
		if kw == nil {
			res.anchor = d
		} else {
			m.mark = markKeyword
			res.anchorKw = d
		}
		if !hasAttr(r.Root(), m.mark) {
			res.err = fmt.Sprintf("anchor %v chose another region on the marked page", kw)
			return res
		}
		mons = append(mons, m)
		if os.Getenv("BENCH_DEBUG") != "" {
			fmt.Printf("DEBUG monitor kw=%v path=%s tag=%s classes=%v blocks=%d\n", kw, r.Fingerprint.Path, r.Fingerprint.Tag, r.Fingerprint.Classes, len(r.Fingerprint.Blocks))
			for i, b := range r.Fingerprint.Blocks {
				if i < 8 || i > len(r.Fingerprint.Blocks)-3 {
					fmt.Printf("DEBUG   %q %s\n", b.Text[:min(len(b.Text), 80)], b.Href)
				}
			}
		}
	}
	unrelated := unrelatedContent(other)
	for _, m := range mons {
		all := mutations(keyword, unrelated)
		if m.keywords != nil {
			all = append(all, keywordMutations(keyword, mons[0].fp)...)
		}
		all = append(all, pageTypeMutations(pg.group)...)
		for _, mu := range all {
			if mu.onlyMain && m.keywords != nil {
				continue
			}
			res.outcomes = append(res.outcomes, measure(pg, base, m, mu))
		}
		if m.keywords != nil {
			res.outcomes = append(res.outcomes, reanchorSequence(pg, base, m, mons[0].fp, keyword))
		}
	}
	return res
}

// measure applies one mutation to the base page and runs the monitor's
// check on the result.
func measure(pg page, base []byte, m monitor, mu mutation) outcome {
	o := outcome{class: mu.class, mutation: mu.name, keywords: m.keywords != nil}
	doc := mustParse(base)
	region := findMarked(doc, m.mark)
	if region == nil {
		o.skipped = "region not found"
		return o
	}
	var lines []string
	for _, b := range m.fp.Blocks {
		lines = append(lines, b.Text)
	}
	var page strings.Builder
	eachText(doc, func(t *html.Node) { page.WriteString(t.Data) })
	w := &watch{lines: strings.Join(lines, "\n"), page: collapse(page.String())}
	if why := mu.apply(doc, region, w); why != "" {
		o.skipped = why
		return o
	}
	if mu.class == classRemoval && duplicated(doc, m.fp) {
		o.skipped = "the region's content is also elsewhere on the page"
		return o
	}
	var buf bytes.Buffer
	if err := html.Render(&buf, doc); err != nil {
		o.skipped = err.Error()
		return o
	}
	cur := mustParse(buf.Bytes())
	t0 := time.Now()
	r, err := detect.Relocate(cur, pg.url, m.fp)
	o.relocate = time.Since(t0)
	if errors.Is(err, detect.ErrKeywordsNotFound) {
		o.gone = true
		return o
	}
	if err != nil {
		o.skipped = err.Error()
		return o
	}
	t1 := time.Now()
	ch := detect.Compare(m.fp, r.Fingerprint, m.keywords)
	o.compare = time.Since(t1)
	o.score, o.lost, o.changed, o.material, o.signals = r.Score, lost(r), ch.Changed, ch.Material, ch.Signals
	if os.Getenv("BENCH_DEBUG") != "" {
		if strings.HasPrefix(mu.name, "new item") {
			found := false
			for _, b := range r.Fingerprint.Blocks {
				found = found || strings.Contains(b.Text, "credit facility")
			}
			fmt.Printf("DEBUG new item in fingerprint: %v (%d blocks, path %s); in page: %v\n", found, len(r.Fingerprint.Blocks), r.Fingerprint.Path, bytes.Contains(buf.Bytes(), []byte("credit facility")))
		}
		for _, sg := range ch.Signals {
			if sg.From != nil && sg.To != nil {
				a, b := detect.Normalize(*sg.From), detect.Normalize(*sg.To)
				i := 0
				for i < len(a) && i < len(b) && a[i] == b[i] {
					i++
				}
				lo := max(0, i-60)
				fmt.Printf("DEBUG %s %s: %q\n   vs %q\n", mu.name, sg.Field, a[lo:min(len(a), i+60)], b[lo:min(len(b), i+60)])
			}
		}
	}
	for _, l := range ch.PDFLinks {
		if strings.HasSuffix(l, newPDF) {
			o.pdf = true
		}
	}
	return o
}

func mustParse(b []byte) *html.Node {
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		// html.Parse fails only on reader errors and absurd nesting.
		return &html.Node{Type: html.DocumentNode}
	}
	return doc
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// duplicated tells whether half or more of the region's text (as
// four-word shingles) is still on the page: a removal is then no
// removal.
func duplicated(doc *html.Node, fp *detect.Fingerprint) bool {
	var b strings.Builder
	eachText(doc, func(t *html.Node) { b.WriteString(t.Data); b.WriteByte(' ') })
	page := make(map[string]bool)
	for _, s := range shingles4(b.String()) {
		page[s] = true
	}
	n, found := 0, 0
	for _, bl := range fp.Blocks {
		for _, s := range shingles4(bl.Text) {
			n++
			if page[s] {
				found++
			}
		}
	}
	return n > 0 && 2*found >= n
}

func shingles4(s string) []string {
	w := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []string
	for i := 0; i+4 <= len(w); i++ {
		out = append(out, strings.Join(w[i:i+4], " "))
	}
	return out
}
