package content

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// placeCells counts a table's cells before placing them: the cells and
// the rows' indexes are allocated once at their size, not grown cell by
// cell and row by row.
func TestPlaceCellsAllocatesOnce(t *testing.T) {
	const rows, cols = 12, 8
	var b strings.Builder
	b.WriteString("<table><thead><tr>")
	for c := 0; c < cols; c++ {
		b.WriteString("<th></th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for r := 1; r < rows; r++ {
		b.WriteString("<tr>")
		for c := 0; c < cols; c++ {
			b.WriteString("<td></td>")
		}
		b.WriteString("<!-- a comment --> </tr>")
	}
	b.WriteString("<tr></tr></tbody></table>")
	_, body := parseBody(t, "<html><body>"+b.String()+"</body></html>")
	var table *html.Node
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Table {
			table = c
		}
	}
	trs := tableRows(table, nil)
	if len(trs) != rows+1 {
		t.Fatalf("%d rows, want %d", len(trs), rows+1)
	}
	cells, byRow, ok := placeCells(trs)
	if !ok {
		t.Fatal("placeCells failed")
	}
	if len(cells) != rows*cols || cap(cells) != len(cells) {
		t.Errorf("cells: len %d cap %d, want both %d", len(cells), cap(cells), rows*cols)
	}
	for r, row := range byRow {
		if r == rows {
			if row != nil {
				t.Errorf("empty row: %v, want nil", row)
			}
			continue
		}
		if len(row) != cols {
			t.Fatalf("row %d: %v", r, row)
		}
		for c, i := range row {
			if i != r*cols+c || cells[i].col != c || cells[i].header != (r == 0) {
				t.Errorf("row %d cell %d: index %d, col %d, header %v", r, c, i, cells[i].col, cells[i].header)
			}
		}
		if cap(row) != len(row) {
			// A row's indexes share one slice: appending to one must
			// not write over the next.
			t.Errorf("row %d: cap %d, len %d", r, cap(row), len(row))
		}
	}
	// The cells, the rows, their indexes and the columns a rowspan
	// takes (grown per column): not one allocation per row.
	if n := testing.AllocsPerRun(20, func() { placeCells(trs) }); n >= rows {
		t.Errorf("placeCells: %v allocations for %d rows", n, rows)
	}
}

// putCandidates empties the list it keeps for the next page: no tree of
// this page stays reachable from the pool.
func TestPutCandidatesClears(t *testing.T) {
	n := &html.Node{Type: html.ElementNode, Data: "div"}
	cs := make([]candidate, 2, numKinds)
	cs[0] = candidate{kind: kArticle, node: n, src: n}
	cs[1] = candidate{kind: kBody, src: n, strip: bodyStrips, view: true}
	putCandidates(cs)
	for i, c := range cs[:2] {
		if c.node != nil || c.src != nil || c.strip != nil || c.kind != 0 {
			t.Errorf("candidate %d kept: %+v", i, c)
		}
	}
	putCandidates(nil) // nothing to give back
}

// The article's words are its lines' words plus half their CJK
// characters, summed: countWords of the whole text, whatever characters
// the lines hold (an odd count of CJK characters on two lines, broken
// characters, a vertical tab, white space beyond ASCII).
func TestArtLinesWordsCJK(t *testing.T) {
	parts := []string{"漢", "字", "かな", "word", " ", "\n", "\n\n", "—", "\xe2\x80", "\xe2", "\v", "\u00a0", "\u3000",
		"a,b", "ภาษา", "한", "x\ty", "\f", "\r", "long words in a row here"}
	texts := []string{"", "漢\n字", "漢\n字\n漢", "a漢\nb", "\xe2\n\x80", "a —\nb — c"}
	seed := uint32(7)
	for k := 0; k < 2000; k++ {
		var b strings.Builder
		for j := 0; j < 12; j++ {
			seed = seed*1664525 + 1013904223
			b.WriteString(parts[seed>>16%uint32(len(parts))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if got, want := newArtLines(s).words, countWords(s); got != want {
			t.Fatalf("newArtLines(%q).words = %d, countWords %d", s, got, want)
		}
		n, c := wordsCJK(s)
		if n+c/2 != countWords(s) {
			t.Fatalf("wordsCJK(%q) = %d, %d; countWords %d", s, n, c, countWords(s))
		}
	}
	// Two lines of one CJK character each: half a word per line rounds
	// down to nothing, half of the two to one word.
	if n, c := wordsCJK("漢"); n != 0 || c != 1 {
		t.Errorf("wordsCJK(漢) = %d, %d", n, c)
	}
	if w := newArtLines("漢\n字").words; w != 1 {
		t.Errorf("words of 漢\\n字: %d, want 1", w)
	}
}

// absolutizeWith and normalizeTables tell whether they changed what
// textOf reads.
func TestAbsolutizeTablesReportChanges(t *testing.T) {
	base, _ := url.Parse("https://example.com/a/")
	for _, c := range []struct {
		page        string
		abs, tables bool
		name        string
	}{
		{`<div><p>One <a href="x">link</a> <img src="i.png"> two.</p></div>`, false, false, "links and images"},
		{`<div><a href="x">a<div>block</div>b</a></div>`, true, false, "a block set apart"},
		{`<div><p>one</p><code>line one
line two</code><p>two</p></div>`, true, false, "code wrapped in pre"},
		{`<div><table><tr><td>a</td></tr><tr><td>b</td></tr></table></div>`, false, true, "a one-column table"},
		{`<div><table role="presentation"><tr><td>a</td><td>b</td></tr></table></div>`, false, false, "a layout table"},
	} {
		_, body := parseBody(t, "<html><body>"+c.page+"</body></html>")
		if got := normalizeTables(body); got != c.tables {
			t.Errorf("%s: normalizeTables %v, want %v", c.name, got, c.tables)
		}
		before := textOf(body)
		if got := absolutizeWith(body, base, nil, nil); got != c.abs {
			t.Errorf("%s: absolutizeWith %v, want %v", c.name, got, c.abs)
		}
		if !c.abs && textOf(body) != before {
			t.Errorf("%s: text changed unreported: %q, %q", c.name, before, textOf(body))
		}
	}
	// A renamed element's DataAtom set right again.
	_, body := parseBody(t, "<html><body><div><span>x</span></div></body></html>")
	sp := body.FirstChild.FirstChild
	sp.Data = "p"
	if !absolutizeWith(body, base, nil, nil) || sp.DataAtom != atom.P {
		t.Errorf("renamed element: not reported (%v)", sp.DataAtom)
	}
}

// collapseBytes copies runs of ASCII bytes that are not blank at once:
// runs long and short, beside blanks of every kind and characters of
// more than a byte, collapse as collapse does.
func TestCollapseBytesRuns(t *testing.T) {
	parts := []string{"word", "averyveryverylongwordwithoutanyspace", " ", "  ", "\t", "\v", "\n", "\u00a0", "é", "\xe2\x80",
		"a,b;c", "x", "\u3000", "漢字", "\r\n"}
	seed := uint32(3)
	var scratch []byte
	for k := 0; k < 3000; k++ {
		var b strings.Builder
		for j := 0; j < 10; j++ {
			seed = seed*1664525 + 1013904223
			b.WriteString(parts[seed>>16%uint32(len(parts))])
		}
		s := b.String()
		if got, want := collapseBytes([]byte(s), &scratch), collapse(s); got != want {
			t.Fatalf("collapseBytes(%q) = %q, want %q", s, got, want)
		}
	}
}
