//go:build corpus

package content

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// The selector's measure of the article stands in for textOf of the
// tree the outputs are made from when the article is the choice and the
// steps after the selector change nothing textOf reads: on the corpora's
// pages (every fifth), the text given is textOf's, and it is given on
// some, its words with it.
func TestChosenTextIsTextOf(t *testing.T) {
	if _, err := os.Stat(corpusRoot); err != nil {
		t.Skip("no corpus at " + corpusRoot)
	}
	var files []string
	for _, g := range []string{"readability/test-pages/*/source.html", "trafilatura-eval/pages/*.html", "wcxb-dev/html/*.html.gz"} {
		m, _ := filepath.Glob(filepath.Join(corpusRoot, g))
		files = append(files, m...)
	}
	base, _ := url.Parse("https://example.com/page")
	given, pages := 0, 0
	for i, f := range files {
		if i%5 != 0 || testing.Short() && i%50 != 0 {
			continue
		}
		body, err := readPage(f)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(body) {
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		root, err := html.Parse(lightBody(body))
		if err != nil {
			t.Fatal(err)
		}
		s := scan(root, base, false)
		doc := &Document{Metadata: s.meta, signals: s.sig}
		c := contentNode(root, s, Options{OnlyMainContent: true}, doc, nil)
		pages++
		if !c.textOK {
			if c.text != "" {
				t.Errorf("%s: a text kept without textOK", f)
			}
			continue
		}
		given++
		if want := textOf(c.node); c.text != want {
			t.Fatalf("%s: the measured text differs from textOf:\n%q\n%q", f, c.text, want)
		}
		if want := countWords(c.text); c.words != want {
			t.Fatalf("%s: %d words given, countWords %d", f, c.words, want)
		}
	}
	if pages > 0 && given == 0 {
		t.Errorf("no text given on %d pages", pages)
	}
}
