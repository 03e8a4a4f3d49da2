//go:build corpus

package content

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"webacq/bench/content/corpus"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestSheetRoom measures what half A's style sheets hide (README: Issue
// 20, inlinecss): with ROOM=1, the pages whose sheets hide something,
// the elements and their words, and the pages where the hidden words
// are half or more (HALF) or four fifths or more (WHOLE) of the body's;
// ROOM=v lists every page. Run with -tags corpus.
func TestSheetRoom(t *testing.T) {
	if os.Getenv("ROOM") == "" {
		t.Skip()
	}
	pages, err := corpus.LoadWCXB(filepath.Join(corpusRoot, "wcxb-dev"))
	if err != nil {
		t.Fatal(err)
	}
	var whole, half int
	var withSheets, withRules, withMarks, marks, markedWords int
	for _, p := range pages {
		if p.Half != corpus.HalfA {
			continue
		}
		body, _ := p.Body()
		cuts := rawCuts(body)
		root, _ := parseHTML(func() io.Reader { return cutBody(body, cuts) })
		sheets := styleSheets(body, cuts)
		if len(sheets) > 0 {
			withSheets++
		}
		rules := parseSheets(sheets)
		if len(rules) > 0 {
			withRules++
		}
		before := map[*html.Node]bool{}
		for d := root; d != nil; d = nextWithin(d, root) {
			if d.Type == html.ElementNode && Hidden(d) {
				before[d] = true
			}
		}
		sheetHide(root, rules)
		m, w := 0, 0
		for d := root; d != nil; d = nextWithin(d, root) {
			if d.Type == html.ElementNode && Hidden(d) && !before[d] {
				m++
				w += countWords(nodeText(d))
			}
		}
		bw := 0
		if b := findBody(root); b != nil {
			for d := b; d != nil; {
				if d.Type == html.ElementNode && (d.DataAtom == atom.Script || d.DataAtom == atom.Style || before[d]) {
					d = skipWithin(d, b)
					continue
				}
				if d.Type == html.TextNode {
					bw += countWords(d.Data)
				}
				d = nextWithin(d, b)
			}
		}
		if m > 0 && bw >= 100 && w*5 >= bw*4 {
			whole++
			fmt.Printf("WHOLE %s %s %d/%d\n", p.Name, p.Type, w, bw)
		} else if m > 0 && w*2 >= bw {
			half++
			fmt.Printf("HALF %s %s %d/%d\n", p.Name, p.Type, w, bw)
		}
		if m > 0 {
			withMarks++
			marks += m
			markedWords += w
			if os.Getenv("ROOM") == "v" {
				fmt.Printf("%s %s rules %d marked %d words %d\n", p.Name, p.Type, len(rules), m, w)
			}
		}
	}
	fmt.Println("whole", whole, "half", half)
	fmt.Println("sheets", withSheets, "rules", withRules, "marked pages", withMarks, "elements", marks, "words", markedWords)
}

// TestSheetDebug lists the elements one half-A page's sheets hide
// (ROOMPAGE=NNNN) and the rules that hide each.
func TestSheetDebug(t *testing.T) {
	want := os.Getenv("ROOMPAGE")
	if want == "" {
		t.Skip()
	}
	pages, _ := corpus.LoadWCXB(filepath.Join(corpusRoot, "wcxb-dev"))
	for _, p := range pages {
		if p.Name != want || p.Half != corpus.HalfA {
			continue
		}
		body, _ := p.Body()
		cuts := rawCuts(body)
		root, _ := parseHTML(func() io.Reader { return cutBody(body, cuts) })
		rules := parseSheets(styleSheets(body, cuts))
		before := map[*html.Node]bool{}
		for d := root; d != nil; d = nextWithin(d, root) {
			if d.Type == html.ElementNode && Hidden(d) {
				before[d] = true
			}
		}
		sheetHide(root, rules)
		for d := root; d != nil; d = nextWithin(d, root) {
			if d.Type == html.ElementNode && Hidden(d) && !before[d] {
				var by []string
				for _, r := range rules {
					if steps := 1 << 20; r.hide && r.parse() && r.match(d, &steps) {
						by = append(by, r.text)
					}
				}
				txt := collapse(nodeText(d))
				fmt.Printf("<%s id=%q class=%q> words %d by %v :: %.150s\n", d.Data, attr(d, "id"), attr(d, "class"), countWords(txt), by, txt)
			}
		}
	}
}
