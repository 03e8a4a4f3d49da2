// Command content measures the main-content quality of internal/content
// beside go-trafilatura's, without and with its fallback extractors, on
// the same pages in the same run: shingle F1 on readability's test pages,
// snippet F1 on trafilatura's evaluation pages and word F1 per page type
// on wcxb-dev, each for all pages and for the two halves of
// corpus.Half, with the time each extractor took. See README.md.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// extraction is one extractor's output on one page.
type extraction struct {
	text  string
	title string
	err   error
}

type extractor struct {
	name string
	run  func(body []byte, pageURL string) extraction
}

// result is what is kept of one extractor on one page.
type result struct {
	score  corpus.Score
	took   time.Duration
	failed bool
	title  string
}

// corpusOrder is the order corpora are loaded and reported in.
var corpusOrder = []string{corpus.Readability, corpus.Eval, corpus.WCXB}

var corpusTitle = map[string]string{
	corpus.Readability: "readability (shingle F1)",
	corpus.Eval:        "trafilatura-eval (snippet F1)",
	corpus.WCXB:        "wcxb-dev (word F1)",
}

func main() {
	readDir := flag.String("readability", "../shared/corpus/readability/test-pages", "folder of readability test pages")
	evalDir := flag.String("eval", "../shared/corpus/trafilatura-eval", "folder of the trafilatura evaluation pages")
	wcxbDir := flag.String("wcxb", "../shared/corpus/wcxb-dev", "folder of wcxb-dev")
	which := flag.String("corpus", "all", "corpora to score, comma-separated: readability, eval, wcxb, all (both = readability,eval)")
	half := flag.String("half", "", "score one half only: A (tune) or B (held out); default both")
	pageType := flag.String("type", "", "wcxb-dev: score one page type only (article, forum, ...)")
	peers := flag.String("peers", "both", "go-trafilatura runs beside ours: both, plain (no fallback), fallback, none")
	oursOnly := flag.Bool("ours", false, "run only our extractor (same as -peers none)")
	full := flag.Bool("full", false, "convert the whole body (onlyMainContent=false)")
	worst := flag.Int("worst", 0, "list the N worst pages of ours per corpus and per wcxb-dev page type (half A unless -half B)")
	verbose := flag.Bool("v", false, "verbose: -worst 10 unless -worst is given")
	titles := flag.Bool("titles", false, "list every title mismatch (readability)")
	one := flag.String("page", "", "print each extractor's text of one page, by folder, file or wcxb number, and exit")
	dump := flag.String("dump", "", "write each extractor's text of every page and <corpus>-scores.tsv under this folder")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the extraction runs to this file")
	off := flag.String("off", "", "switch these rule families of ours off, comma-separated (-off list names them; README: Issue 20, ablate)")
	textDate := flag.Bool("textdate", false, "switch date2's text-date rule on (content.SetTextDate; README: Issue 20, date2)")
	flag.Parse()
	content.SetTextDate(*textDate)

	if *off == "list" {
		fmt.Println(strings.Join(content.RuleNames(), "\n"))
		return
	}
	if *off != "" {
		for _, name := range strings.Split(*off, ",") {
			if err := content.SetRuleOff(strings.TrimSpace(name), true); err != nil {
				fail(err)
			}
		}
	}

	if *verbose && *worst == 0 {
		*worst = 10
	}
	if *oursOnly {
		*peers = "none"
	}
	*half = strings.ToUpper(*half)
	if *half != "" && *half != corpus.HalfA && *half != corpus.HalfB {
		fail(fmt.Errorf("-half %q: want A or B", *half))
	}

	pages, err := load(*which, *readDir, *evalDir, *wcxbDir)
	if err != nil {
		fail(err)
	}
	pages = filter(pages, *half, *pageType)
	if len(pages) == 0 {
		fail(fmt.Errorf("no pages to score"))
	}

	extractors := []extractor{{"webacq", ours(!*full)}}
	switch *peers {
	case "both":
		extractors = append(extractors, extractor{"go-trafilatura", theirs(false)}, extractor{"go-traf+fallback", theirs(true)})
	case "plain":
		extractors = append(extractors, extractor{"go-trafilatura", theirs(false)})
	case "fallback":
		extractors = append(extractors, extractor{"go-traf+fallback", theirs(true)})
	case "none":
	default:
		fail(fmt.Errorf("-peers %q: want both, plain, fallback or none", *peers))
	}

	if *one != "" {
		showPage(pages, extractors, *one)
		return
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

	results, err := run(pages, extractors, *dump)
	if err != nil {
		fail(err)
	}

	listHalf := corpus.HalfA
	if *half == corpus.HalfB {
		listHalf = corpus.HalfB
	}
	for _, c := range corpusOrder {
		idx := indexes(pages, func(p *corpus.Page) bool { return p.Corpus == c })
		if len(idx) == 0 {
			continue
		}
		report(c, pages, idx, extractors, results)
		if *worst > 0 {
			listWorst(c, pages, idx, extractors, results, *worst, listHalf)
		}
		if c == corpus.Readability {
			reportTitles(pages, idx, results[0], *titles)
		}
		if *dump != "" {
			if err := writeScores(*dump, c, pages, idx, extractors, results); err != nil {
				fail(err)
			}
		}
	}
	reportSpeed(pages, extractors, results)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// load reads the corpora named in which.
func load(which, readDir, evalDir, wcxbDir string) ([]*corpus.Page, error) {
	want := map[string]bool{}
	for _, w := range strings.Split(which, ",") {
		switch w = strings.TrimSpace(w); w {
		case "all":
			want[corpus.Readability], want[corpus.Eval], want[corpus.WCXB] = true, true, true
		case "both":
			want[corpus.Readability], want[corpus.Eval] = true, true
		case corpus.Readability, corpus.Eval, corpus.WCXB:
			want[w] = true
		default:
			return nil, fmt.Errorf("-corpus %q: want readability, eval, wcxb or all", w)
		}
	}
	var pages []*corpus.Page
	if want[corpus.Readability] {
		ps, err := corpus.LoadReadability(readDir)
		if err != nil {
			return nil, err
		}
		pages = append(pages, ps...)
	}
	if want[corpus.Eval] {
		ps, err := corpus.LoadEval(evalDir)
		if err != nil {
			return nil, err
		}
		pages = append(pages, ps...)
	}
	if want[corpus.WCXB] {
		ps, err := corpus.LoadWCXB(wcxbDir)
		if err != nil {
			return nil, err
		}
		pages = append(pages, ps...)
	}
	return pages, nil
}

func filter(pages []*corpus.Page, half, pageType string) []*corpus.Page {
	var out []*corpus.Page
	for _, p := range pages {
		if half != "" && p.Half != half {
			continue
		}
		if pageType != "" && p.Corpus == corpus.WCXB && p.Type != pageType {
			continue
		}
		out = append(out, p)
	}
	return out
}

// run runs every extractor on every page. They take turns page by page
// (the first to go changes from page to page) on one goroutine, so that
// each meets the same machine load with the same pages and the time
// ratios are fair. A page is read and decoded outside the timed part.
func run(pages []*corpus.Page, extractors []extractor, dump string) ([][]result, error) {
	results := make([][]result, len(extractors))
	for e := range extractors {
		results[e] = make([]result, len(pages))
	}
	for i, p := range pages {
		if i > 0 && i%250 == 0 {
			fmt.Fprintf(os.Stderr, "%d of %d pages\n", i, len(pages))
		}
		body, err := p.Body()
		if err != nil {
			return nil, err
		}
		for k := range extractors {
			e := (i + k) % len(extractors)
			start := time.Now()
			x := extractors[e].run(body, p.URL)
			took := time.Since(start)
			results[e][i] = result{
				score: p.Score(x.text, x.err == nil), took: took, failed: x.err != nil, title: x.title,
			}
			if dump != "" {
				dir := filepath.Join(dump, extractors[e].name, p.Corpus)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return nil, err
				}
				name := filepath.Join(dir, strings.TrimSuffix(p.Name, ".html")+".txt")
				if err := os.WriteFile(name, []byte(x.text), 0o644); err != nil {
					return nil, err
				}
			}
		}
	}
	return results, nil
}

func ours(onlyMain bool) func(body []byte, pageURL string) extraction {
	return func(body []byte, pageURL string) extraction {
		doc, err := content.HTML(body, pageURL, content.Options{OnlyMainContent: onlyMain})
		if err != nil {
			return extraction{err: err}
		}
		return extraction{text: doc.Text, title: doc.Metadata.Title}
	}
}

// theirs runs go-trafilatura as its own comparison script does (comments
// excluded, tables kept, balanced focus), with the publication-date scan
// off as in our fallback: it does not change the content and would only
// slow it down. With fallback, go-trafilatura also runs go-readability
// and go-domdistiller on the page (no FallbackCandidates given) and
// keeps whichever of the three its comparison prefers.
func theirs(fallback bool) func(body []byte, pageURL string) extraction {
	return func(body []byte, pageURL string) extraction {
		u, _ := url.Parse(pageURL)
		root, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			return extraction{err: err}
		}
		r, err := trafilatura.ExtractDocument(root, trafilatura.Options{
			OriginalURL:     u,
			EnableFallback:  fallback,
			ExcludeComments: true,
			HtmlDateMode:    trafilatura.Disabled,
		})
		if err != nil {
			return extraction{err: err}
		}
		if r == nil {
			return extraction{err: fmt.Errorf("no result")}
		}
		return extraction{text: r.ContentText, title: r.Metadata.Title}
	}
}

func showPage(pages []*corpus.Page, extractors []extractor, name string) {
	for _, p := range pages {
		if p.Name != name && p.Name != name+".html" {
			continue
		}
		body, err := p.Body()
		if err != nil {
			fail(err)
		}
		fmt.Printf("%s %s, half %s %s, %s\n", p.Corpus, p.Name, p.Half, p.Type, p.URL)
		for _, e := range extractors {
			start := time.Now()
			x := e.run(body, p.URL)
			took := time.Since(start)
			s := p.Score(x.text, x.err == nil)
			fmt.Printf("=== %s (%v, err %v) %s\n%s\n", e.name, took.Round(time.Millisecond), x.err, scoreText(p.Corpus, s), x.text)
		}
		return
	}
	fail(fmt.Errorf("no page %q", name))
}

func scoreText(c string, s corpus.Score) string {
	if c == corpus.Eval {
		return fmt.Sprintf("tp %d fn %d fp %d", s.TP, s.FN, s.FP)
	}
	return fmt.Sprintf("F1 %.3f P %.3f R %.3f", s.F1, s.P, s.R)
}

func indexes(pages []*corpus.Page, keep func(*corpus.Page) bool) []int {
	var idx []int
	for i, p := range pages {
		if keep(p) {
			idx = append(idx, i)
		}
	}
	return idx
}

// group is a row of a corpus table: all its pages, or one page type's.
type group struct {
	name string
	idx  []int
}

func groups(c string, pages []*corpus.Page, idx []int) []group {
	gs := []group{{"all", idx}}
	if c != corpus.WCXB {
		return gs
	}
	byType := map[string][]int{}
	for _, i := range idx {
		byType[pages[i].Type] = append(byType[pages[i].Type], i)
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	// The most pages first, as the corpus README lists them.
	sort.Slice(types, func(a, b int) bool {
		if len(byType[types[a]]) != len(byType[types[b]]) {
			return len(byType[types[a]]) > len(byType[types[b]])
		}
		return types[a] < types[b]
	})
	for _, t := range types {
		gs = append(gs, group{t, byType[t]})
	}
	return gs
}

// sum is extractor e's score over the pages of idx in half h ("" = all);
// n is how many there are.
func sum(c string, pages []*corpus.Page, idx []int, res []result, h string) (s corpus.Score, n int) {
	var scores []corpus.Score
	for _, i := range idx {
		if h == "" || pages[i].Half == h {
			scores = append(scores, res[i].score)
		}
	}
	return corpus.Sum(c, scores), len(scores)
}

func report(c string, pages []*corpus.Page, idx []int, extractors []extractor, results [][]result) {
	nA, nB := 0, 0
	for _, i := range idx {
		if pages[i].Half == corpus.HalfA {
			nA++
		} else {
			nB++
		}
	}
	fmt.Printf("\n%s: %d pages (half A %d, B %d)\n", corpusTitle[c], len(idx), nA, nB)

	fmt.Printf("  %-15s %-15s", "", "pages (A/B)")
	for _, e := range extractors {
		fmt.Printf(" | %-20s", e.name)
	}
	fmt.Printf("\n  %-15s %-15s", "", "")
	for range extractors {
		fmt.Printf(" | %-6s %-6s %-6s", "all", "A", "B")
	}
	fmt.Println()
	for _, g := range groups(c, pages, idx) {
		_, a := sum(c, pages, g.idx, results[0], corpus.HalfA)
		_, b := sum(c, pages, g.idx, results[0], corpus.HalfB)
		fmt.Printf("  %-15s %-15s", g.name, fmt.Sprintf("%d (%d/%d)", len(g.idx), a, b))
		for e := range extractors {
			fmt.Print(" |")
			for _, h := range []string{"", corpus.HalfA, corpus.HalfB} {
				s, n := sum(c, pages, g.idx, results[e], h)
				if n == 0 {
					fmt.Printf(" %-6s", "-")
				} else {
					fmt.Printf(" %.4f", s.F1)
				}
			}
		}
		fmt.Println()
	}
	for e, ex := range extractors {
		s, _ := sum(c, pages, idx, results[e], "")
		failed := 0
		for _, i := range idx {
			if results[e][i].failed {
				failed++
			}
		}
		fmt.Printf("  %-16s all: P %.4f R %.4f", ex.name, s.P, s.R)
		if c == corpus.Eval {
			fmt.Printf("  tp %d fn %d fp %d tn %d", s.TP, s.FN, s.FP, s.TN)
		}
		fmt.Printf("  failed %d\n", failed)
	}
}

// listWorst lists the n worst pages of ours in half h, per group, with
// the others' scores beside.
func listWorst(c string, pages []*corpus.Page, idx []int, extractors []extractor, results [][]result, n int, h string) {
	bad := func(s corpus.Score) float64 {
		if c == corpus.Eval {
			return -float64(s.FN + s.FP)
		}
		return s.F1
	}
	for _, g := range groups(c, pages, idx) {
		if c == corpus.WCXB && g.name == "all" {
			continue // per type only
		}
		var in []int
		for _, i := range g.idx {
			if pages[i].Half == h {
				in = append(in, i)
			}
		}
		sort.SliceStable(in, func(a, b int) bool { return bad(results[0][in[a]].score) < bad(results[0][in[b]].score) })
		fmt.Printf("  worst %d of ours, %s, half %s:\n", min(n, len(in)), g.name, h)
		for k := 0; k < n && k < len(in); k++ {
			i := in[k]
			line := fmt.Sprintf("    %-40.40s", pages[i].Name)
			for e, ex := range extractors {
				line += fmt.Sprintf("  %s %s", ex.name, scoreText(c, results[e][i].score))
			}
			fmt.Println(line)
		}
	}
}

// reportSpeed prints each extractor's time per corpus and the peers'
// time over ours.
func reportSpeed(pages []*corpus.Page, extractors []extractor, results [][]result) {
	fmt.Printf("\nspeed: seconds of extraction (parse included), one goroutine, the extractors in turns page by page\n")
	fmt.Printf("  %-12s %6s %8s", "corpus", "pages", "MB")
	for e, ex := range extractors {
		if e == 0 {
			fmt.Printf("  %18s", ex.name+" s (MB/s)")
		} else {
			fmt.Printf("  %26s", ex.name+" s (× ours)")
		}
	}
	fmt.Println()
	line := func(name string, idx []int) {
		size := 0
		for _, i := range idx {
			size += pages[i].Size
		}
		t := make([]float64, len(extractors))
		for e := range extractors {
			for _, i := range idx {
				t[e] += results[e][i].took.Seconds()
			}
		}
		fmt.Printf("  %-12s %6d %8.1f", name, len(idx), float64(size)/1e6)
		for e := range extractors {
			if e == 0 {
				fmt.Printf("  %9.1f (%5.1f)   ", t[0], float64(size)/1e6/t[0])
			} else {
				fmt.Printf("  %18.1f (%4.2f×)", t[e], t[e]/t[0])
			}
		}
		fmt.Println()
	}
	var all []int
	for _, c := range corpusOrder {
		idx := indexes(pages, func(p *corpus.Page) bool { return p.Corpus == c })
		if len(idx) > 0 {
			line(c, idx)
			all = append(all, idx...)
		}
	}
	line("all", all)
}

// writeScores writes DIR/<corpus>-scores.tsv: each page's half, type and
// each extractor's score.
func writeScores(dir, c string, pages []*corpus.Page, idx []int, extractors []extractor, results [][]result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var tsv strings.Builder
	tsv.WriteString("page\thalf\ttype")
	for _, ex := range extractors {
		tsv.WriteString("\t" + ex.name)
	}
	tsv.WriteString("\n")
	for _, i := range idx {
		fmt.Fprintf(&tsv, "%s\t%s\t%s", pages[i].Name, pages[i].Half, pages[i].Type)
		for e := range extractors {
			tsv.WriteString("\t" + scoreText(c, results[e][i].score))
		}
		tsv.WriteString("\n")
	}
	return os.WriteFile(filepath.Join(dir, c+"-scores.tsv"), []byte(tsv.String()), 0o644)
}

func reportTitles(pages []*corpus.Page, idx []int, ours []result, list bool) {
	exact, loose := 0, 0
	for _, i := range idx {
		got := corpus.NormSpace(ours[i].title)
		if got == pages[i].Title {
			exact++
		} else if list {
			fmt.Printf("  title %-30s got %q want %q\n", pages[i].Name, got, pages[i].Title)
		}
		if lenientEqual(got, pages[i].Title) {
			loose++
		}
	}
	n := float64(len(idx))
	fmt.Printf("  webacq titles: exact %d/%d (%.1f%%)  lenient %d/%d (%.1f%%)\n",
		exact, len(idx), 100*float64(exact)/n, loose, len(idx), 100*float64(loose)/n)
}

// lenientEqual compares titles by their words, ignoring case and
// punctuation, and accepts one being a prefix or suffix of the other
// (a title with or without its " | Site" part).
func lenientEqual(a, b string) bool {
	ta, tb := strings.Join(corpus.Tokens(a), " "), strings.Join(corpus.Tokens(b), " ")
	if ta == "" || tb == "" {
		return ta == tb
	}
	return ta == tb || strings.HasPrefix(ta, tb) || strings.HasPrefix(tb, ta) ||
		strings.HasSuffix(ta, tb) || strings.HasSuffix(tb, ta)
}
