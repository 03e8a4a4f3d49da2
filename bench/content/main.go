// Command content measures the main-content quality of internal/content
// beside go-trafilatura's on the same pages in the same run: text F1 on
// the readability test pages (4-gram word shingles against the expected
// article) and snippet precision and recall on the trafilatura evaluation
// pages, with the wall time of each extractor. See README.md.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"webacq/internal/content"
	"webacq/internal/fetch"
)

// readabilityURL is the URL the readability test suite gives every page.
const readabilityURL = "http://fakehost/test/page.html"

// page is one page of either corpus, decoded to UTF-8.
type page struct {
	corpus string // "readability" or "eval"
	name   string
	url    string
	body   []byte

	expected  []string // readability: words of expected.html
	wantTitle string   // readability: expected title
	with      []string // eval: snippets the content must contain
	without   []string // eval: snippets it must not contain
}

// extraction is one extractor's result on one page.
type extraction struct {
	text  string
	title string
	took  time.Duration
	err   error
}

// score is a page's score: shingle F1 (readability) or snippet counts (eval).
type score struct {
	f1, prec, recall float64
	tp, fn, fp, tn   int
}

type extractor struct {
	name string
	run  func(p *page) extraction
}

func main() {
	readDir := flag.String("readability", "../shared/corpus/readability/test-pages", "folder of readability test pages")
	evalDir := flag.String("eval", "../shared/corpus/trafilatura-eval", "folder of the trafilatura evaluation pages")
	which := flag.String("corpus", "both", "readability, eval or both")
	oursOnly := flag.Bool("ours", false, "run only our extractor (no go-trafilatura)")
	tFallback := flag.Bool("tfallback", false, "run go-trafilatura with its fallback extractors")
	full := flag.Bool("full", false, "convert the whole body (onlyMainContent=false)")
	lowest := flag.Int("lowest", 10, "how many of the worst pages of each corpus to list")
	titles := flag.Bool("titles", false, "list every title mismatch (readability)")
	one := flag.String("page", "", "print our text (and go-trafilatura's) of one page, by folder or file name, and exit")
	dump := flag.String("dump", "", "write each extractor's text of every page and a scores.tsv under this folder")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the extraction runs to this file")
	flag.Parse()

	var pages []*page
	var err error
	if *which == "both" || *which == "readability" {
		if pages, err = loadReadability(*readDir, pages); err != nil {
			fail(err)
		}
	}
	if *which == "both" || *which == "eval" {
		if pages, err = loadEval(*evalDir, pages); err != nil {
			fail(err)
		}
	}

	extractors := []extractor{{"webacq", ours(!*full)}}
	if !*oursOnly {
		extractors = append(extractors, extractor{"go-trafilatura", theirs(*tFallback)})
	}

	if *one != "" {
		for _, p := range pages {
			if p.name != *one {
				continue
			}
			for _, e := range extractors {
				x := e.run(p)
				fmt.Printf("=== %s (%v, %v)\n%s\n", e.name, x.took.Round(time.Millisecond), x.err, x.text)
			}
			return
		}
		fail(fmt.Errorf("no page %q", *one))
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}

	// results[e][i] is extractor e on page i. Extractors run one after
	// the other on each page, in turns, on one goroutine, so that both
	// meet the same machine load and the time ratio is fair.
	results := make([][]extraction, len(extractors))
	for e := range extractors {
		results[e] = make([]extraction, len(pages))
	}
	for i, p := range pages {
		for k := range extractors {
			e := (i + k) % len(extractors)
			results[e][i] = extractors[e].run(p)
		}
	}

	for _, corpus := range []string{"readability", "eval"} {
		var idx []int
		bytesIn := 0
		for i, p := range pages {
			if p.corpus == corpus {
				idx = append(idx, i)
				bytesIn += len(p.body)
			}
		}
		if len(idx) == 0 {
			continue
		}
		fmt.Printf("\n%s: %d pages, %.1f MB\n", corpus, len(idx), float64(bytesIn)/1e6)
		scores := make([][]score, len(extractors))
		for e := range extractors {
			scores[e] = make([]score, len(pages))
			for _, i := range idx {
				scores[e][i] = scorePage(pages[i], results[e][i])
			}
		}
		report(corpus, pages, idx, extractors, results, scores, *lowest)
		if *dump != "" {
			if err := writeDump(*dump, corpus, pages, idx, extractors, results, scores); err != nil {
				fail(err)
			}
		}
		if corpus == "readability" {
			reportTitles(pages, idx, results[0], *titles)
		}
	}
	if len(extractors) == 2 {
		var t [2]time.Duration
		for e := range extractors {
			for _, x := range results[e] {
				t[e] += x.took
			}
		}
		fmt.Printf("\nspeed: go-trafilatura takes %.2f× our time (all pages, one goroutine each, in turns)\n",
			t[1].Seconds()/t[0].Seconds())
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// decode turns a stored page into UTF-8 as the fetch path does with a
// text/html response that names no charset in its header.
func decode(b []byte) []byte {
	out, _ := fetch.ToUTF8(b, "text/html", "text/html")
	return out
}

func loadReadability(dir string, pages []*page) ([]*page, error) {
	srcs, err := filepath.Glob(filepath.Join(dir, "*", "source.html"))
	if err != nil || len(srcs) == 0 {
		return nil, fmt.Errorf("no pages under %s", dir)
	}
	for _, src := range srcs {
		d := filepath.Dir(src)
		b, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		exp, err := os.ReadFile(filepath.Join(d, "expected.html"))
		if err != nil {
			return nil, err
		}
		var meta struct {
			Title string `json:"title"`
		}
		if m, err := os.ReadFile(filepath.Join(d, "expected-metadata.json")); err == nil {
			_ = json.Unmarshal(m, &meta)
		}
		pages = append(pages, &page{
			corpus: "readability", name: filepath.Base(d), url: readabilityURL, body: decode(b),
			expected: tokens(htmlText(exp)), wantTitle: strings.Join(strings.Fields(meta.Title), " "),
		})
	}
	return pages, nil
}

func loadEval(dir string, pages []*page) ([]*page, error) {
	b, err := os.ReadFile(filepath.Join(dir, "evaldata.json"))
	if err != nil {
		return nil, err
	}
	var entries map[string]struct {
		File    string   `json:"file"`
		With    []string `json:"with"`
		Without []string `json:"without"`
	}
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("evaldata.json: %w", err)
	}
	urls := make([]string, 0, len(entries))
	for u := range entries {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		e := entries[u]
		src, err := os.ReadFile(filepath.Join(dir, "pages", e.File))
		if err != nil {
			return nil, err
		}
		p := &page{corpus: "eval", name: e.File, url: u, body: decode(src)}
		for _, s := range e.With {
			p.with = append(p.with, normSpace(s))
		}
		for _, s := range e.Without {
			p.without = append(p.without, normSpace(s))
		}
		pages = append(pages, p)
	}
	return pages, nil
}

func ours(onlyMain bool) func(p *page) extraction {
	return func(p *page) extraction {
		start := time.Now()
		doc, err := content.HTML(p.body, p.url, content.Options{OnlyMainContent: onlyMain})
		x := extraction{took: time.Since(start), err: err}
		if err == nil {
			x.text, x.title = doc.Text, doc.Metadata.Title
		}
		return x
	}
}

// theirs runs go-trafilatura as its own comparison script does (comments
// excluded, tables kept, balanced focus), with the publication-date scan
// off as in our fallback: it does not change the content and would only
// slow it down.
func theirs(fallback bool) func(p *page) extraction {
	return func(p *page) extraction {
		start := time.Now()
		u, _ := url.Parse(p.url)
		root, err := html.Parse(bytes.NewReader(p.body))
		var r *trafilatura.ExtractResult
		if err == nil {
			r, err = trafilatura.ExtractDocument(root, trafilatura.Options{
				OriginalURL:     u,
				EnableFallback:  fallback,
				ExcludeComments: true,
				HtmlDateMode:    trafilatura.Disabled,
			})
		}
		x := extraction{took: time.Since(start), err: err}
		if err == nil && r != nil {
			x.text, x.title = r.ContentText, r.Metadata.Title
		}
		return x
	}
}

func scorePage(p *page, x extraction) score {
	var s score
	if p.corpus == "readability" {
		if x.err == nil {
			s.f1, s.prec, s.recall = shingleF1(tokens(x.text), p.expected)
		}
		return s
	}
	// Snippet scoring of trafilatura's evaluation: a failed extraction
	// misses every wanted snippet.
	text := normSpace(x.text)
	for _, w := range p.with {
		if text != "" && strings.Contains(text, w) {
			s.tp++
		} else {
			s.fn++
		}
	}
	for _, w := range p.without {
		if text != "" && strings.Contains(text, w) {
			s.fp++
		} else {
			s.tn++
		}
	}
	return s
}

func report(corpus string, pages []*page, idx []int, extractors []extractor, results [][]extraction, scores [][]score, lowest int) {
	bytesIn := 0
	for _, i := range idx {
		bytesIn += len(pages[i].body)
	}
	for e, ex := range extractors {
		var took time.Duration
		failed := 0
		for _, i := range idx {
			took += results[e][i].took
			if results[e][i].err != nil {
				failed++
			}
		}
		var f1, p, r float64
		extra := ""
		if corpus == "readability" {
			for _, i := range idx {
				f1 += scores[e][i].f1
				p += scores[e][i].prec
				r += scores[e][i].recall
			}
			n := float64(len(idx))
			f1, p, r = f1/n, p/n, r/n
		} else {
			var tp, fn, fp, tn int
			for _, i := range idx {
				s := scores[e][i]
				tp, fn, fp, tn = tp+s.tp, fn+s.fn, fp+s.fp, tn+s.tn
			}
			p = float64(tp) / float64(tp+fp)
			r = float64(tp) / float64(tp+fn)
			f1 = 2 * p * r / (p + r)
			extra = fmt.Sprintf("  tp %d fn %d fp %d tn %d", tp, fn, fp, tn)
		}
		fmt.Printf("  %-15s F1 %.4f  P %.4f  R %.4f  %7.0f ms  %5.1f MB/s  failed %d%s\n",
			ex.name, f1, p, r, took.Seconds()*1000, float64(bytesIn)/1e6/took.Seconds(), failed, extra)
	}
	if lowest <= 0 {
		return
	}
	// The worst pages of our extractor, with go-trafilatura's score beside.
	sorted := append([]int(nil), idx...)
	bad := func(s score) float64 {
		if corpus == "readability" {
			return s.f1
		}
		return -float64(s.fn + s.fp)
	}
	sort.SliceStable(sorted, func(a, b int) bool { return bad(scores[0][sorted[a]]) < bad(scores[0][sorted[b]]) })
	fmt.Printf("  worst %d of ours:\n", lowest)
	for k := 0; k < lowest && k < len(sorted); k++ {
		i := sorted[k]
		line := fmt.Sprintf("    %-50.50s", pages[i].name)
		for e, ex := range extractors {
			s := scores[e][i]
			if corpus == "readability" {
				line += fmt.Sprintf("  %s F1 %.3f P %.3f R %.3f", ex.name, s.f1, s.prec, s.recall)
			} else {
				line += fmt.Sprintf("  %s fn %d fp %d", ex.name, s.fn, s.fp)
			}
		}
		fmt.Println(line)
	}
}

// writeDump writes DIR/<extractor>/<page>.txt for every page and
// DIR/<corpus>-scores.tsv with each extractor's score of each page.
func writeDump(dir, corpus string, pages []*page, idx []int, extractors []extractor, results [][]extraction, scores [][]score) error {
	var tsv strings.Builder
	tsv.WriteString("page")
	for _, ex := range extractors {
		tsv.WriteString("\t" + ex.name)
	}
	tsv.WriteString("\n")
	for e, ex := range extractors {
		if err := os.MkdirAll(filepath.Join(dir, ex.name), 0o755); err != nil {
			return err
		}
		for _, i := range idx {
			name := filepath.Join(dir, ex.name, strings.TrimSuffix(pages[i].name, ".html")+".txt")
			if err := os.WriteFile(name, []byte(results[e][i].text), 0o644); err != nil {
				return err
			}
		}
	}
	for _, i := range idx {
		tsv.WriteString(pages[i].name)
		for e := range extractors {
			s := scores[e][i]
			if corpus == "readability" {
				fmt.Fprintf(&tsv, "\tF1 %.3f P %.3f R %.3f", s.f1, s.prec, s.recall)
			} else {
				fmt.Fprintf(&tsv, "\tfn %d fp %d", s.fn, s.fp)
			}
		}
		tsv.WriteString("\n")
	}
	return os.WriteFile(filepath.Join(dir, corpus+"-scores.tsv"), []byte(tsv.String()), 0o644)
}

func reportTitles(pages []*page, idx []int, ours []extraction, list bool) {
	exact, loose := 0, 0
	for _, i := range idx {
		got := strings.Join(strings.Fields(ours[i].title), " ")
		if got == pages[i].wantTitle {
			exact++
		} else if list {
			fmt.Printf("  title %-30s got %q want %q\n", pages[i].name, got, pages[i].wantTitle)
		}
		if lenientEqual(got, pages[i].wantTitle) {
			loose++
		}
	}
	n := float64(len(idx))
	fmt.Printf("  webacq titles: exact %d/%d (%.1f%%)  lenient %d/%d (%.1f%%)\n",
		exact, len(idx), 100*float64(exact)/n, loose, len(idx), 100*float64(loose)/n)
}

func normSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// htmlText returns the text of an HTML fragment, blocks separated by
// white space.
func htmlText(b []byte) string {
	n, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	var sb strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
			case html.ElementNode:
				if c.Data == "script" || c.Data == "style" {
					continue
				}
				sb.WriteByte(' ')
				rec(c)
				sb.WriteByte(' ')
			}
		}
	}
	rec(n)
	return sb.String()
}

// tokens lower-cases s and splits it into words: runs of letters and
// digits. Punctuation and white space separate words, so differences in
// spacing around inline tags or punctuation do not count; format
// characters (a soft hyphen) are skipped. Ideographs (written without
// spaces) are one token each.
func tokens(s string) []string {
	var out []string
	start := -1
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1 // a soft hyphen is not shown: it joins the letters around it
		}
		return r
	}, strings.ToLower(s))
	for i, r := range s {
		ideo := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
		word := (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !ideo
		if !word && start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		if ideo {
			out = append(out, string(r))
		} else if word && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// shingleF1 compares the multisets of 4-word shingles of got and want:
// a shingle repeated k times must be matched k times. Texts shorter than
// four words form one shingle.
func shingleF1(got, want []string) (f1, precision, recall float64) {
	g, w := shingles(got), shingles(want)
	var ng, nw, common int
	for _, c := range g {
		ng += c
	}
	for s, c := range w {
		nw += c
		common += min(c, g[s])
	}
	if ng == 0 && nw == 0 {
		return 1, 1, 1
	}
	if ng == 0 || nw == 0 || common == 0 {
		return 0, 0, 0
	}
	precision = float64(common) / float64(ng)
	recall = float64(common) / float64(nw)
	return 2 * precision * recall / (precision + recall), precision, recall
}

func shingles(t []string) map[string]int {
	m := make(map[string]int)
	if len(t) == 0 {
		return m
	}
	if len(t) < 4 {
		m[strings.Join(t, " ")]++
		return m
	}
	for i := 0; i+4 <= len(t); i++ {
		m[t[i]+" "+t[i+1]+" "+t[i+2]+" "+t[i+3]]++
	}
	return m
}

// lenientEqual compares titles by their words, ignoring case and
// punctuation, and accepts one being a prefix or suffix of the other
// (a title with or without its " | Site" part).
func lenientEqual(a, b string) bool {
	ta, tb := strings.Join(tokens(a), " "), strings.Join(tokens(b), " ")
	if ta == "" || tb == "" {
		return ta == tb
	}
	return ta == tb || strings.HasPrefix(ta, tb) || strings.HasPrefix(tb, ta) ||
		strings.HasSuffix(ta, tb) || strings.HasSuffix(tb, ta)
}
