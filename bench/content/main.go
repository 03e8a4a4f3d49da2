// Command content measures the quality of internal/content against the
// readability test pages: main-content text F1 (4-gram word shingles) and
// title accuracy. See README.md.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"webacq/internal/content"
)

// pageURL is the URL the readability test suite gives every page.
const pageURL = "http://fakehost/test/page.html"

type result struct {
	name                string
	f1, prec, recall    float64
	title, wantTitle    string
	titleOK, titleLoose bool
}

func main() {
	corpus := flag.String("corpus", "../shared/corpus/readability/test-pages", "folder of readability test pages")
	lowest := flag.Int("lowest", 10, "how many of the lowest-scoring pages to list")
	titles := flag.Bool("titles", false, "list every title mismatch")
	full := flag.Bool("full", false, "convert the whole body (onlyMainContent=false)")
	page := flag.String("page", "", "print the markdown and text of one page and exit")
	flag.Parse()

	if *page != "" {
		src, err := os.ReadFile(filepath.Join(*corpus, *page, "source.html"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		doc, err := content.HTML(src, pageURL, content.Options{OnlyMainContent: !*full})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%+v\n--- markdown\n%s\n--- text\n%s\n", doc.Metadata, doc.Markdown, doc.Text)
		return
	}

	dirs, err := filepath.Glob(filepath.Join(*corpus, "*", "source.html"))
	if err != nil || len(dirs) == 0 {
		fmt.Fprintf(os.Stderr, "no pages under %s\n", *corpus)
		os.Exit(1)
	}
	var results []result
	var elapsed time.Duration
	var bytesIn int
	for _, src := range dirs {
		dir := filepath.Dir(src)
		r, d, n, err := measure(dir, !*full)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(dir), err)
			continue
		}
		elapsed += d
		bytesIn += n
		results = append(results, r)
	}

	sort.Slice(results, func(i, j int) bool { return results[i].f1 < results[j].f1 })
	fmt.Printf("lowest %d by F1:\n", *lowest)
	for i := 0; i < *lowest && i < len(results); i++ {
		r := results[i]
		fmt.Printf("  %-45s F1 %.3f  P %.3f  R %.3f\n", r.name, r.f1, r.prec, r.recall)
	}
	var f1, p, rc float64
	var exact, loose int
	for _, r := range results {
		f1 += r.f1
		p += r.prec
		rc += r.recall
		if r.titleOK {
			exact++
		}
		if r.titleLoose {
			loose++
		}
		if *titles && !r.titleOK {
			fmt.Printf("  title %-30s got %q want %q\n", r.name, r.title, r.wantTitle)
		}
	}
	n := float64(len(results))
	fmt.Printf("pages %d  mean F1 %.4f  precision %.4f  recall %.4f\n", len(results), f1/n, p/n, rc/n)
	fmt.Printf("title exact %d/%d (%.1f%%)  lenient %d/%d (%.1f%%)\n",
		exact, len(results), 100*float64(exact)/n, loose, len(results), 100*float64(loose)/n)
	fmt.Printf("pipeline %.1f ms total, %.2f MB/s\n", elapsed.Seconds()*1000, float64(bytesIn)/1e6/elapsed.Seconds())
}

func measure(dir string, onlyMain bool) (result, time.Duration, int, error) {
	r := result{name: filepath.Base(dir)}
	src, err := os.ReadFile(filepath.Join(dir, "source.html"))
	if err != nil {
		return r, 0, 0, err
	}
	exp, err := os.ReadFile(filepath.Join(dir, "expected.html"))
	if err != nil {
		return r, 0, 0, err
	}
	var meta struct {
		Title string `json:"title"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "expected-metadata.json")); err == nil {
		_ = json.Unmarshal(b, &meta)
	}

	start := time.Now()
	doc, err := content.HTML(src, pageURL, content.Options{OnlyMainContent: onlyMain})
	d := time.Since(start)
	if err != nil {
		return r, 0, 0, err
	}
	r.f1, r.prec, r.recall = shingleF1(tokens(doc.Text), tokens(htmlText(exp)))
	r.title = strings.Join(strings.Fields(doc.Metadata.Title), " ")
	r.wantTitle = strings.Join(strings.Fields(meta.Title), " ")
	r.titleOK = r.title == r.wantTitle
	r.titleLoose = lenientEqual(r.title, r.wantTitle)
	return r, d, len(src), nil
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
// spacing around inline tags or punctuation do not count. Ideographs
// (written without spaces) are one token each.
func tokens(s string) []string {
	var out []string
	start := -1
	s = strings.ToLower(s)
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
