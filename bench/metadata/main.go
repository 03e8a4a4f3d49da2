// Command metadata measures the title, author and publication date that
// internal/content answers (Document.Metadata, as fetch returns them)
// beside go-trafilatura's, on wcxb-dev (ground_truth title, author and
// publish_date; per page type and per half) and on readability's test
// pages (expected-metadata.json's title, byline and publishedTime; per
// half). See bench/content/README.md, "Issue 20, meta".
//
//	go run ./bench/metadata                    # the tables (about 45 s; 12 s with -peercache)
//	go run ./bench/metadata -half A -worst 30  # and 30 misses of ours per field, half A only
//	go run ./bench/metadata -peer none         # ours only
//	go run ./bench/metadata -peercache F       # go-trafilatura's answers kept in F (read if there)
//	(meta's rules are on branch meta, commit bdf54b3, where -on switches them on)
//	go run ./bench/metadata -save F            # our answers to F; -against F lists the pages that move
//	go run ./bench/metadata -textdate          # date2's text-date rule on (switched off in the build)
//
// Scores, over the pages of a group:
//
//   - title: exact match after Norm (NFC, lower case, white space, quotes
//     and dashes), over every page with a title; and the mean word F1
//     (corpus.WordF1) of the title;
//   - author, over pages whose truth names one: exact after Norm, and
//     contains (one normalised name within the other, the empty answer
//     excluded); false authors: pages whose truth has none where an
//     author is answered;
//   - date, over pages whose truth has a day (wcxb-dev: 780 of 782; two
//     give a month only): the same calendar day (Day);
//     false dates: pages whose truth has none where a date is answered.
//
// Time zones: a date's day is its calendar day as the page writes it, in
// the page's own offset, never converted: "2019-01-03T07:00:02+13:00" is
// 3 January, as a reader of that page sees it and as wcxb's annotators
// wrote publish_date. go-trafilatura answers a time.Time: its day is read
// in the location it carries.
//
// Misses are listed from half A only: rules are written looking at half A
// (issue 20's half rule).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
	"golang.org/x/text/unicode/norm"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// answer is one extractor's metadata of one page.
type answer struct {
	Title, Author, Date string
	Failed              bool `json:",omitempty"`
}

func main() {
	readDir := flag.String("readability", "../shared/corpus/readability/test-pages", "folder of readability test pages")
	wcxbDir := flag.String("wcxb", "../shared/corpus/wcxb-dev", "folder of wcxb-dev")
	which := flag.String("corpus", "all", "readability, wcxb or all")
	pageType := flag.String("type", "", "wcxb-dev: one page type only")
	peer := flag.String("peer", "run", "go-trafilatura beside ours: run or none")
	peerCache := flag.String("peercache", "", "file of go-trafilatura's answers: read when it exists, else written")
	worst := flag.Int("worst", 0, "list up to N misses of ours per field and corpus, half A only")
	verbose := flag.Bool("v", false, "same as -worst 20 unless -worst is given")
	field := flag.String("field", "", "list misses of this field only: title, author or date")
	half := flag.String("half", "", "score one half only: A (while writing rules) or B; default both")
	save := flag.String("save", "", "write our answers to this file (JSON, by corpus/name)")
	against := flag.String("against", "", "list the pages whose answer differs from this -save file: half A by name, half B as counts")
	off := flag.String("off", "", "switch these rule families of ours off, comma-separated (as bench/content -off)")
	textDate := flag.Bool("textdate", false, "switch date2's text-date rule on (content.SetTextDate; bench/content README, Issue 20, date2)")
	flag.Parse()
	content.SetTextDate(*textDate)
	if *off != "" {
		for _, name := range strings.Split(*off, ",") {
			if err := content.SetRuleOff(strings.TrimSpace(name), true); err != nil {
				fail(err)
			}
		}
	}
	if *verbose && *worst == 0 {
		*worst = 20
	}

	var pages []*corpus.Page
	if *which == "all" || *which == corpus.Readability {
		ps, err := corpus.LoadReadability(*readDir)
		if err != nil {
			fail(err)
		}
		for _, p := range ps {
			if *half == "" || p.Half == *half {
				pages = append(pages, p)
			}
		}
	}
	if *which == "all" || *which == corpus.WCXB {
		ps, err := corpus.LoadWCXB(*wcxbDir)
		if err != nil {
			fail(err)
		}
		for _, p := range ps {
			if (*pageType == "" || p.Type == *pageType) && (*half == "" || p.Half == *half) {
				pages = append(pages, p)
			}
		}
	}
	if len(pages) == 0 {
		fail(fmt.Errorf("no pages"))
	}

	var cache map[string]answer
	if *peerCache != "" {
		if b, err := os.ReadFile(*peerCache); err == nil {
			if err := json.Unmarshal(b, &cache); err != nil {
				fail(fmt.Errorf("%s: %w", *peerCache, err))
			}
		}
	}
	runPeer := *peer == "run"
	if !runPeer && *peer != "none" {
		fail(fmt.Errorf("-peer %q: want run or none", *peer))
	}

	ours := make([]answer, len(pages))
	var theirs []answer
	if runPeer {
		theirs = make([]answer, len(pages))
	}
	fresh := false
	var tookOurs, tookTheirs time.Duration
	for i, p := range pages {
		body, err := p.Body()
		if err != nil {
			fail(err)
		}
		start := time.Now()
		ours[i] = runOurs(body, p.URL)
		tookOurs += time.Since(start)
		if !runPeer {
			continue
		}
		key := p.Corpus + "/" + p.Name
		if a, ok := cache[key]; ok {
			theirs[i] = a
			continue
		}
		start = time.Now()
		theirs[i] = runTheirs(body, p.URL)
		tookTheirs += time.Since(start)
		if cache == nil {
			cache = make(map[string]answer)
		}
		cache[key], fresh = theirs[i], true
	}
	if fresh && *peerCache != "" {
		b, _ := json.Marshal(cache)
		if err := os.WriteFile(*peerCache, b, 0o644); err != nil {
			fail(err)
		}
	}

	if *save != "" {
		m := make(map[string]answer, len(pages))
		for i, p := range pages {
			m[p.Corpus+"/"+p.Name] = ours[i]
		}
		b, _ := json.Marshal(m)
		if err := os.WriteFile(*save, b, 0o644); err != nil {
			fail(err)
		}
	}

	groups := makeGroups(pages)
	fmt.Printf("pages: %d; webacq %v", len(pages), tookOurs.Round(time.Millisecond))
	if runPeer {
		fmt.Printf(", go-trafilatura %v (run now)", tookTheirs.Round(time.Millisecond))
	}
	fmt.Println()
	for _, f := range []string{"title", "author", "date"} {
		fmt.Println()
		printTable(f, groups, pages, ours, theirs)
	}
	if *worst > 0 {
		listMisses(pages, ours, theirs, *worst, *field)
	}
	if *against != "" {
		b, err := os.ReadFile(*against)
		if err != nil {
			fail(err)
		}
		var before map[string]answer
		if err := json.Unmarshal(b, &before); err != nil {
			fail(fmt.Errorf("%s: %w", *against, err))
		}
		listMoves(pages, ours, before)
	}
}

// listMoves prints, per field, the pages whose answer differs from
// before: half A by name with both answers and whether the page's score
// rose or fell, half B as counts only.
func listMoves(pages []*corpus.Page, ours []answer, before map[string]answer) {
	for _, f := range []string{"title", "author", "date"} {
		fmt.Printf("\n== %s moves\n", f)
		type count struct{ up, down, same int }
		counts := map[string]*count{}
		for i, p := range pages {
			old, ok := before[p.Corpus+"/"+p.Name]
			if !ok {
				continue
			}
			now := ours[i]
			var o, n string
			var so, sn int
			switch f {
			case "title":
				o, n = old.Title, now.Title
				so, sn = b2i(p.Title != "" && Norm(o) == Norm(p.Title)), b2i(p.Title != "" && Norm(n) == Norm(p.Title))
			case "author":
				o, n = old.Author, now.Author
				score := func(a string) int {
					if p.Author == "" {
						return -b2i(Norm(a) != "") // a false author
					}
					return b2i(AuthorExact(a, p.Author))
				}
				so, sn = score(o), score(n)
			case "date":
				o, n = old.Date, now.Date
				w, _ := Day(p.Date)
				score := func(a string) int {
					if w == "" {
						return -b2i(strings.TrimSpace(a) != "") // a false date
					}
					d, _ := Day(a)
					return b2i(d == w)
				}
				so, sn = score(o), score(n)
			}
			if o == n {
				continue
			}
			key := p.Corpus + " " + p.Half
			if counts[key] == nil {
				counts[key] = &count{}
			}
			c := counts[key]
			verdict := "same"
			switch {
			case sn > so:
				c.up++
				verdict = "better"
			case sn < so:
				c.down++
				verdict = "worse"
			default:
				c.same++
			}
			if p.Half == corpus.HalfA {
				fmt.Printf("%s %s %s: %s\n    was %q\n    now %q\n", p.Corpus, p.Name, p.Type, verdict, clip(o), clip(n))
			}
		}
		keys := make([]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c := counts[k]
			fmt.Printf("  %s: %d changed, %d better, %d worse, %d neither\n", k, c.up+c.down+c.same, c.up, c.down, c.same)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func runOurs(body []byte, pageURL string) answer {
	doc, err := content.HTML(body, pageURL, content.Options{OnlyMainContent: true})
	if err != nil {
		return answer{Failed: true}
	}
	m := doc.Metadata
	return answer{Title: m.Title, Author: m.Author, Date: m.PublishedTime}
}

// runTheirs runs go-trafilatura as bench/content does (comments excluded,
// no fallback) but with its publication-date search in its default mode
// for that setting (htmldate, fast), since the date is measured here.
func runTheirs(body []byte, pageURL string) answer {
	u, _ := url.Parse(pageURL)
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return answer{Failed: true}
	}
	r, err := trafilatura.ExtractDocument(root, trafilatura.Options{
		OriginalURL:     u,
		ExcludeComments: true,
	})
	if err != nil || r == nil {
		return answer{Failed: true}
	}
	a := answer{Title: r.Metadata.Title, Author: r.Metadata.Author}
	if !r.Metadata.Date.IsZero() {
		a.Date = r.Metadata.Date.Format("2006-01-02")
	}
	return a
}

// group is a named set of pages, by index.
type group struct {
	name string
	idx  []int
}

func makeGroups(pages []*corpus.Page) []group {
	var gs []group
	add := func(name string, keep func(p *corpus.Page) bool) {
		var g group
		g.name = name
		for i, p := range pages {
			if keep(p) {
				g.idx = append(g.idx, i)
			}
		}
		if len(g.idx) > 0 {
			gs = append(gs, g)
		}
	}
	for _, c := range []struct{ id, name string }{{corpus.Readability, "readability"}, {corpus.WCXB, "wcxb-dev"}} {
		add(c.name+" all", func(p *corpus.Page) bool { return p.Corpus == c.id })
		for _, h := range []string{corpus.HalfA, corpus.HalfB} {
			add(c.name+" "+h, func(p *corpus.Page) bool { return p.Corpus == c.id && p.Half == h })
		}
	}
	types := map[string]bool{}
	for _, p := range pages {
		if p.Corpus == corpus.WCXB {
			types[p.Type] = true
		}
	}
	for _, t := range []string{"article", "service", "product", "collection", "forum", "listing", "documentation"} {
		if !types[t] {
			continue
		}
		for _, h := range []string{corpus.HalfA, corpus.HalfB} {
			add("  "+t+" "+h, func(p *corpus.Page) bool { return p.Corpus == corpus.WCXB && p.Type == t && p.Half == h })
		}
	}
	return gs
}

// scores are one extractor's figures on one group for every field.
type scores struct {
	titleN, titleExact int
	titleF1            float64
	authorN, authorExact, authorContains,
	authorNone, authorFalse int
	dateN, dateExact, dateNone, dateFalse, dateUnread int
}

func score(idx []int, pages []*corpus.Page, as []answer) scores {
	var s scores
	for _, i := range idx {
		p, a := pages[i], as[i]
		if p.Title != "" {
			s.titleN++
			if Norm(a.Title) == Norm(p.Title) {
				s.titleExact++
			}
			f1, _, _ := corpus.WordF1(a.Title, p.Title)
			s.titleF1 += f1
		}
		if p.Author != "" {
			s.authorN++
			if AuthorExact(a.Author, p.Author) {
				s.authorExact++
			}
			if AuthorContains(a.Author, p.Author) {
				s.authorContains++
			}
		} else {
			s.authorNone++
			if Norm(a.Author) != "" {
				s.authorFalse++
			}
		}
		want, _ := Day(p.Date)
		got, read := Day(a.Date)
		if strings.TrimSpace(a.Date) != "" && !read {
			s.dateUnread++
		}
		if want != "" {
			s.dateN++
			if got == want {
				s.dateExact++
			}
		} else {
			s.dateNone++
			if strings.TrimSpace(a.Date) != "" {
				s.dateFalse++
			}
		}
	}
	if s.titleN > 0 {
		s.titleF1 /= float64(s.titleN)
	}
	return s
}

func ratio(k, n int) string {
	if n == 0 {
		return "     -"
	}
	return fmt.Sprintf("%.4f", float64(k)/float64(n))
}

func printTable(field string, groups []group, pages []*corpus.Page, ours, theirs []answer) {
	peer := theirs != nil
	pair := func(a, b string) string {
		if !peer {
			return a
		}
		return a + " / " + b
	}
	switch field {
	case "title":
		fmt.Printf("title (webacq%s)        n   exact            word F1\n", map[bool]string{true: " / go-trafilatura"}[peer])
	case "author":
		fmt.Printf("author (webacq%s)       n   exact            contains         none  false authors\n", map[bool]string{true: " / go-trafilatura"}[peer])
	case "date":
		fmt.Printf("date (webacq%s)         n   same day         none  false dates  unread\n", map[bool]string{true: " / go-trafilatura"}[peer])
	}
	for _, g := range groups {
		o := score(g.idx, pages, ours)
		var t scores
		if peer {
			t = score(g.idx, pages, theirs)
		}
		switch field {
		case "title":
			fmt.Printf("%-22s %5d  %-15s  %s\n", g.name, o.titleN, pair(ratio(o.titleExact, o.titleN), ratio(t.titleExact, t.titleN)),
				pair(fmt.Sprintf("%.4f", o.titleF1), fmt.Sprintf("%.4f", t.titleF1)))
		case "author":
			fmt.Printf("%-22s %5d  %-15s  %-15s  %4d  %s\n", g.name, o.authorN,
				pair(ratio(o.authorExact, o.authorN), ratio(t.authorExact, t.authorN)),
				pair(ratio(o.authorContains, o.authorN), ratio(t.authorContains, t.authorN)),
				o.authorNone, pair(strconv.Itoa(o.authorFalse), strconv.Itoa(t.authorFalse)))
		case "date":
			fmt.Printf("%-22s %5d  %-15s  %4d  %-11s  %s\n", g.name, o.dateN,
				pair(ratio(o.dateExact, o.dateN), ratio(t.dateExact, t.dateN)),
				o.dateNone, pair(strconv.Itoa(o.dateFalse), strconv.Itoa(t.dateFalse)),
				pair(strconv.Itoa(o.dateUnread), strconv.Itoa(t.dateUnread)))
		}
	}
}

// listMisses prints up to n misses of ours per field and corpus, of half
// A only.
func listMisses(pages []*corpus.Page, ours, theirs []answer, n int, field string) {
	peer := func(i int) answer {
		if theirs == nil {
			return answer{}
		}
		return theirs[i]
	}
	for _, f := range []string{"title", "author", "date"} {
		if field != "" && field != f {
			continue
		}
		for _, c := range []string{corpus.Readability, corpus.WCXB} {
			var lines []string
			for i, p := range pages {
				if p.Corpus != c || p.Half != corpus.HalfA {
					continue
				}
				a, t := ours[i], peer(i)
				var want, got, their string
				miss := false
				switch f {
				case "title":
					want, got, their = p.Title, a.Title, t.Title
					miss = want != "" && Norm(got) != Norm(want)
				case "author":
					want, got, their = p.Author, a.Author, t.Author
					miss = (want != "" && !AuthorExact(got, want)) || (want == "" && Norm(got) != "")
				case "date":
					want, got, their = p.Date, a.Date, t.Date
					w, _ := Day(want)
					g, _ := Day(got)
					miss = (w != "" && g != w) || (w == "" && strings.TrimSpace(got) != "")
				}
				if miss {
					lines = append(lines, fmt.Sprintf("%s %s %s\n    want %q\n    ours %q\n    traf %q", p.Name, p.Type, p.URL, clip(want), clip(got), clip(their)))
				}
			}
			fmt.Printf("\n== %s misses, %s half A: %d\n", f, c, len(lines))
			for k, l := range lines {
				if k >= n {
					break
				}
				fmt.Println(l)
			}
		}
	}
}

func clip(s string) string {
	s = corpus.NormSpace(s)
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

// Norm normalises a title or a name for comparison: NFC, lower case,
// typographic quotes and dashes to ASCII ones, white space collapsed.
func Norm(s string) string {
	s = strings.ToLower(norm.NFC.String(s))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '‘', '’', '‚', '‛', '′', '`', '´':
			return '\''
		case '“', '”', '„', '‟', '″', '«', '»':
			return '"'
		case '‐', '‑', '‒', '–', '—', '―', '−':
			return '-'
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// AuthorExact tells whether an answered author is the expected one after
// Norm.
func AuthorExact(got, want string) bool {
	return Norm(got) != "" && Norm(got) == Norm(want)
}

// AuthorContains tells whether one normalised name holds the other
// ("By Ana Sandoiu" and "Ana Sandoiu"); an empty answer holds nothing.
func AuthorContains(got, want string) bool {
	g, w := Norm(got), Norm(want)
	return g != "" && w != "" && (strings.Contains(g, w) || strings.Contains(w, g))
}

var (
	isoDay  = regexp.MustCompile(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:$|[T\s_])`)
	dotDay  = regexp.MustCompile(`^(\d{1,2})\.(\d{1,2})\.(\d{4})(?:$|\s)`)
	compact = regexp.MustCompile(`^(\d{4})(\d{2})(\d{2})(?:$|T)`)
)

// dayLayouts are the other forms Day reads, tried whole.
var dayLayouts = []string{
	time.RFC1123Z, time.RFC1123, time.RFC850, time.ANSIC, time.UnixDate, time.RubyDate,
	"Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST", "Mon, 2 Jan 2006",
	"January 2, 2006", "Jan 2, 2006", "Jan. 2, 2006", "January 2 2006", "Jan 2 2006",
	"2 January 2006", "2 Jan 2006", "02 January 2006", "Monday, January 2, 2006", "Mon, January 2, 2006",
	"January 2, 2006 3:04 PM", "Jan 2, 2006 3:04 PM", "January 2, 2006 15:04",
}

// Day returns the calendar day of a date as written, YYYY-MM-DD, and
// whether it could be read: ISO 8601 and RFC 3339 (any time and offset
// after the day; the day is not converted to UTC), YYYYMMDD,
// DD.MM.YYYY, and the usual English forms (RFC 1123, "January 2, 2006",
// "2 Jan 2006"). "" and false for anything else (01/02/2006 is
// ambiguous and not read).
func Day(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	ymd := func(y, m, d string) (string, bool) {
		yi, _ := strconv.Atoi(y)
		mi, _ := strconv.Atoi(m)
		di, _ := strconv.Atoi(d)
		if yi < 1000 || mi < 1 || mi > 12 || di < 1 || di > 31 {
			return "", false
		}
		return fmt.Sprintf("%04d-%02d-%02d", yi, mi, di), true
	}
	if m := isoDay.FindStringSubmatch(s); m != nil {
		return ymd(m[1], m[2], m[3])
	}
	if m := compact.FindStringSubmatch(s); m != nil {
		return ymd(m[1], m[2], m[3])
	}
	if m := dotDay.FindStringSubmatch(s); m != nil {
		return ymd(m[3], m[2], m[1])
	}
	for _, l := range dayLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Format("2006-01-02"), true
		}
	}
	return "", false
}
