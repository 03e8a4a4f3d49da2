// Package corpus loads the three main-content corpora of ../shared/corpus
// (readability's test pages, half of trafilatura's evaluation set and
// wcxb-dev), splits each in two halves by a hash of the page name and
// scores an extracted text against a page's ground truth. bench/content
// uses it, and so can any program that tunes or trains on these pages:
// write rules or fit weights looking at half A only, and judge them on
// half B.
package corpus

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/net/html"

	"webacq/internal/fetch"
)

// Corpus names, as Page.Corpus holds them.
const (
	Readability = "readability"
	Eval        = "eval"
	WCXB        = "wcxb"
)

// Halves. A is the half that rules are written and weights fitted on
// ("tune"), B the half held out to judge them.
const (
	HalfA = "A"
	HalfB = "B"
)

// ReadabilityURL is the URL the readability test suite gives every page.
const ReadabilityURL = "http://fakehost/test/page.html"

// Half returns the half a page belongs to: FNV-1a 32 of its name, even
// is A, odd is B. The name is the folder name for readability
// ("wikipedia-2"), the file name for trafilatura-eval ("abc.html") and
// the four-digit number for wcxb-dev ("0042"). This function is the one
// definition of the split.
func Half(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	if h.Sum32()%2 == 0 {
		return HalfA
	}
	return HalfB
}

// Page is one page of a corpus with its ground truth. The HTML is read
// from disk only when Body is called, so that a whole corpus (wcxb-dev is
// 416 MB unpacked) need not be held in memory.
type Page struct {
	Corpus string // Readability, Eval or WCXB
	Name   string // as given to Half
	Half   string // HalfA or HalfB
	URL    string
	Type   string // wcxb-dev page type (article, documentation, ...); "" elsewhere

	// Expected is the text the main content should be: the text of
	// readability's expected.html, or wcxb-dev's main_content.
	Expected string
	Title    string // readability, wcxb: expected title (white space normalised)
	// Author and Date are the expected byline and publication date
	// (readability: expected-metadata.json's byline and publishedTime as
	// written; wcxb: ground_truth.author and publish_date, YYYY-MM-DD);
	// "" where the truth has none. bench/metadata scores them.
	Author, Date string
	With         []string // eval: snippets the content must contain (white space normalised)
	Without      []string // eval: snippets it must not contain

	Size int // bytes of the decoded page, once Body has been called

	path string // the stored page
	gz   bool
}

// Raw returns the page as stored (unpacked if gzipped).
func (p *Page) Raw() ([]byte, error) {
	b, err := os.ReadFile(p.path)
	if err != nil || !p.gz {
		return b, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.path, err)
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// Body returns the page decoded to UTF-8 as the fetch path decodes a
// text/html response whose header names no charset (BOM, meta charset,
// valid UTF-8).
func (p *Page) Body() ([]byte, error) {
	b, err := p.Raw()
	if err != nil {
		return nil, err
	}
	out, _ := fetch.ToUTF8(b, "text/html", "text/html")
	p.Size = len(out)
	return out, nil
}

// LoadAll loads the three corpora under shared (../shared/corpus):
// readability's pages, then trafilatura-eval's, then wcxb-dev's.
func LoadAll(shared string) ([]*Page, error) {
	var pages []*Page
	for _, load := range []func() ([]*Page, error){
		func() ([]*Page, error) { return LoadReadability(shared + "/readability/test-pages") },
		func() ([]*Page, error) { return LoadEval(shared + "/trafilatura-eval") },
		func() ([]*Page, error) { return LoadWCXB(shared + "/wcxb-dev") },
	} {
		ps, err := load()
		if err != nil {
			return nil, err
		}
		pages = append(pages, ps...)
	}
	return pages, nil
}

// LoadReadability reads readability's test pages: DIR/<name>/source.html,
// expected.html and expected-metadata.json.
func LoadReadability(dir string) ([]*Page, error) {
	srcs, err := filepath.Glob(filepath.Join(dir, "*", "source.html"))
	if err != nil || len(srcs) == 0 {
		return nil, fmt.Errorf("no pages under %s", dir)
	}
	var pages []*Page
	for _, src := range srcs {
		d := filepath.Dir(src)
		exp, err := os.ReadFile(filepath.Join(d, "expected.html"))
		if err != nil {
			return nil, err
		}
		var meta struct {
			Title         string `json:"title"`
			Byline        string `json:"byline"`
			PublishedTime string `json:"publishedTime"`
		}
		if m, err := os.ReadFile(filepath.Join(d, "expected-metadata.json")); err == nil {
			_ = json.Unmarshal(m, &meta)
		}
		name := filepath.Base(d)
		pages = append(pages, &Page{
			Corpus: Readability, Name: name, Half: Half(name), URL: ReadabilityURL,
			Expected: htmlText(exp), Title: NormSpace(meta.Title), path: src,
			Author: strings.TrimSpace(meta.Byline), Date: strings.TrimSpace(meta.PublishedTime),
		})
	}
	return pages, nil
}

// LoadEval reads trafilatura's evaluation pages: DIR/evaldata.json and
// DIR/pages/<file>. Pages are in the order of their URLs.
func LoadEval(dir string) ([]*Page, error) {
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
	var pages []*Page
	for _, u := range urls {
		e := entries[u]
		p := &Page{Corpus: Eval, Name: e.File, Half: Half(e.File), URL: u, path: filepath.Join(dir, "pages", e.File)}
		for _, s := range e.With {
			p.With = append(p.With, NormSpace(s))
		}
		for _, s := range e.Without {
			p.Without = append(p.Without, NormSpace(s))
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// LoadWCXB reads wcxb-dev: DIR/ground-truth/NNNN.json and
// DIR/html/NNNN.html.gz, in file order. A ground truth without
// main_content (two of 1,497: 4802 and 4893 have only snippets) is an
// empty main content: an extractor scores 1 there if it returns no word,
// else 0 (as the figures of issue 20 were measured). The page type
// "category" is read as "collection", as the corpus README says.
func LoadWCXB(dir string) ([]*Page, error) {
	files, err := filepath.Glob(filepath.Join(dir, "ground-truth", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no pages under %s", dir)
	}
	sort.Strings(files)
	var pages []*Page
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var gt struct {
			URL      string `json:"url"`
			Internal struct {
				PageType struct {
					Primary string `json:"primary"`
				} `json:"page_type"`
			} `json:"_internal"`
			GroundTruth struct {
				Title       string `json:"title"`
				Author      string `json:"author"`
				PublishDate string `json:"publish_date"`
				MainContent string `json:"main_content"`
			} `json:"ground_truth"`
		}
		if err := json.Unmarshal(b, &gt); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		typ := gt.Internal.PageType.Primary
		if typ == "category" {
			typ = "collection"
		}
		u := gt.URL
		if u == "" {
			u = "http://fakehost/" + name + ".html"
		}
		pages = append(pages, &Page{
			Corpus: WCXB, Name: name, Half: Half(name), URL: u, Type: typ,
			Expected: gt.GroundTruth.MainContent, Title: NormSpace(gt.GroundTruth.Title),
			Author: strings.TrimSpace(gt.GroundTruth.Author), Date: strings.TrimSpace(gt.GroundTruth.PublishDate),
			path: filepath.Join(dir, "html", name+".html.gz"), gz: true,
		})
	}
	return pages, nil
}

// NormSpace collapses runs of white space to one space and trims.
func NormSpace(s string) string {
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
