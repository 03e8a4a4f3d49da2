package content

import (
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
