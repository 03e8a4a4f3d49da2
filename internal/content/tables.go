package content

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Financial statements (SEC filings, earnings releases) lay tables out
// for print: a grid of many narrow columns where a label spans three of
// them, "$" and ")" sit in cells of their own beside the number, empty
// spacer columns and rows separate the figures, and a heading such as
// "Thirteen Weeks Ended" spans a value column and its spacer. Handed as
// is to the markdown converter, such a table either keeps every spacer
// column with headings above the wrong column, or, when one cell breaks
// a line (<br>, <p>), is dropped in favour of its cells run together
// ("Gross profit140,071 147,215").
//
// normalizeTables rewrites each data table in the content tree before
// conversion into the plain rectangle markdown can hold: spans expanded
// into logical columns, empty columns and rows dropped, "$", "%" and ")"
// cells joined to their number, cell content kept on one line, and the
// rows above the first figures merged into one header row so that every
// number sits under its column's heading. Tables that only lay out a
// page (role=presentation, a table or code block in a cell, cells of
// prose) are left alone, and those whose content sits in one column
// become blocks.

// maxColspan is the largest colspan browsers honour. maxGrid bounds the
// grid columns and the cells of the rebuilt table: real tables stay far
// below, and a page of spans built to be large is left to the converter
// rather than grown into millions of cells.
const (
	maxColspan = 1000
	maxGrid    = 250000
)

// A cell of at least proseLines blocks and proseChars characters is a
// column of a page laid out with a table, not a value.
const (
	proseLines = 3
	proseChars = 300
)

// Bounds of a header found above figures: financial tables stack two or
// three header rows (period, date, currency note) of short headings, and
// hold at most a title and a note above them. Past these, the rows above
// the figures are content, not a header.
const (
	maxHeaderRows  = 4
	maxHeaderChars = 80
	maxTitleRows   = 3
)

// normalizeTables rewrites the data tables under n (see above).
//
// It reports whether it rewrote a table.
func normalizeTables(n *html.Node) (changed bool) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling // normalizeTable may replace c
		if c.Type != html.ElementNode || c.DataAtom == atom.Pre {
			// A table inside <pre> is printed as text, spacing and all.
			continue
		}
		if c.DataAtom == atom.Table && normalizeTable(c) {
			changed = true
			continue
		}
		if normalizeTables(c) {
			changed = true
		}
	}
	return changed
}

// cellKind tells what a cell's text is, for merging and header detection.
type cellKind uint8

const (
	kindEmpty  cellKind = iota
	kindText            // anything else
	kindAmount          // 1,234  $1.05  (365,241)  12.5%  99.1
	kindYear            // 2024: a column heading, not a figure
	kindNil             // — or n/a standing for a figure
)

// tcell is one <td> or <th> placed on the table's grid.
type tcell struct {
	n         *html.Node
	col, cols int // first grid column and span (rowspans only move later rows' cells)
	text      string
	kind      cellKind
	header    bool   // a <th>, or a cell of <thead>
	media     bool   // holds an image or another embed, so is not empty without text
	merged    bool   // joined to a neighbour ("$" beside its number)
	prefix    string // a neighbour's "$" or "(" joined to this figure
	suffix    string // a neighbour's ")" or "%" joined to this figure
	first     int    // first logical column, set once columns are known
	last      int    // last logical column
}

func (c *tcell) empty() bool { return c.merged || (c.kind == kindEmpty && !c.media) }

func (c *tcell) figure() bool { return c.kind == kindAmount || c.kind == kindNil }

// normalizeTable rewrites t and reports whether it did: a data table
// into its normal form, a table whose content is all in one column into
// a block per cell; a table with nothing to show goes.
func normalizeTable(t *html.Node) bool {
	if attr(t, "role") == "presentation" {
		return false
	}
	trs := tableRows(t, nil)
	if len(trs) == 0 {
		return false
	}
	cells, byRow, ok := placeCells(trs)
	if !ok {
		return false
	}
	for _, row := range byRow {
		mergeAffixes(cells, row)
	}
	width := logicalColumns(cells)
	if width == 0 {
		// Nothing to show: spacer rows, a rule drawn with borders.
		t.Parent.RemoveChild(t)
		return true
	}
	if width*len(trs) > maxGrid {
		return false
	}
	if width == 1 {
		unwrap(t, cells)
		return true
	}
	var rows []int  // rows with content, in order
	firstData := -1 // index in rows of the first row with an amount
	for r, row := range byRow {
		kept := false
		for _, i := range row {
			if c := &cells[i]; !c.empty() {
				kept = true
				if c.kind == kindAmount && firstData < 0 {
					firstData = len(rows)
				}
			}
		}
		if kept {
			rows = append(rows, r)
		}
	}
	figures := figureColumns(cells, byRow, rows, firstData, width)
	pre, head := headerRows(cells, byRow, rows, firstData, figures, width)
	rebuild(t, cells, byRow, rows, pre, head, figures, width)
	return true
}

// figureColumns tells the columns of figures: from the first row with an
// amount down, at least two in three of their cells are figures. A table
// of labels and values that holds a few amounts among words (an infobox)
// has none.
func figureColumns(cells []tcell, byRow [][]int, rows []int, firstData, width int) []bool {
	figures := make([]bool, width)
	if firstData < 0 {
		return figures
	}
	nums := make([]int, width)
	words := make([]int, width)
	for _, r := range rows[firstData:] {
		for _, i := range byRow[r] {
			switch c := &cells[i]; {
			case c.empty():
			case c.figure():
				nums[c.first]++
			default:
				words[c.first]++
			}
		}
	}
	for j := range figures {
		figures[j] = nums[j] > 0 && nums[j] >= 2*words[j]
	}
	return figures
}

// tableRows appends the rows of t (not of tables inside it) to trs.
func tableRows(n *html.Node, trs []*html.Node) []*html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Tr:
			trs = append(trs, c)
		case atom.Thead, atom.Tbody, atom.Tfoot:
			trs = tableRows(c, trs)
		}
	}
	return trs
}

// placeCells puts every cell on the grid, rowspans pushing the cells of
// later rows to the right as browsers do. It fails (the table is layout)
// when a cell holds a table or reads like prose.
func placeCells(trs []*html.Node) ([]tcell, [][]int, bool) {
	// The cells are counted first, so that the cells and the rows'
	// indexes into them are allocated once at their size (a tcell is
	// large: grown by appending, the slice allocated about twice its
	// size; the rows' indexes share one slice).
	n := 0
	for _, tr := range trs {
		for td := tr.FirstChild; td != nil; td = td.NextSibling {
			if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
				n++
			}
		}
	}
	cells := make([]tcell, 0, n)
	byRow := make([][]int, len(trs))
	idx := make([]int, 0, n)
	var taken []int    // per grid column, the first row a rowspan above leaves free
	var w cellWriter   // its buffer serves every cell
	var scratch []byte // and collapseBytes's
	for r, tr := range trs {
		col := 0
		head := tr.Parent != nil && tr.Parent.DataAtom == atom.Thead
		from := len(idx)
		for td := tr.FirstChild; td != nil; td = td.NextSibling {
			if td.Type != html.ElementNode || (td.DataAtom != atom.Td && td.DataAtom != atom.Th) {
				continue
			}
			for col < len(taken) && taken[col] > r {
				col++
			}
			cs := min(max(atoiSmall(attr(td, "colspan")), 1), maxColspan)
			if col+cs > maxGrid {
				return nil, nil, false
			}
			rs := 1
			if v, set := attrOK(td, "rowspan"); set {
				switch n := atoiSmall(v); {
				case n > 1:
					rs = min(n, len(trs)-r)
				case n == 0 && strings.TrimSpace(v) == "0":
					// rowspan="0" runs to the end of the table.
					rs = len(trs) - r
				}
			}
			w = cellWriter{b: w.b[:0]}
			w.node(td)
			text := collapseBytes(w.b, &scratch)
			if w.nested || w.lines >= proseLines && len(text) > proseChars {
				return nil, nil, false
			}
			idx = append(idx, len(cells))
			cells = append(cells, tcell{n: td, col: col, cols: cs, text: text, kind: kindOf(text),
				header: head || td.DataAtom == atom.Th, media: w.media})
			for len(taken) < col+cs {
				taken = append(taken, 0)
			}
			for k := col; k < col+cs; k++ {
				taken[k] = max(taken[k], r+rs)
			}
			col += cs
		}
		if len(idx) > from {
			byRow[r] = idx[from:len(idx):len(idx)]
		}
	}
	return cells, byRow, true
}

// cellWriter gathers a cell's text with a space wherever a browser
// breaks the line (<br>, block elements), counting those lines.
type cellWriter struct {
	b      []byte
	lines  int  // blocks of text
	inLine bool // text written since the last break
	nested bool // a table or a code block inside
	media  bool
}

func (w *cellWriter) brk() {
	if w.inLine {
		w.lines++
		w.inLine = false
	}
	w.b = append(w.b, ' ')
}

func (w *cellWriter) node(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			w.b = append(w.b, c.Data...)
			if !w.inLine && strings.TrimSpace(c.Data) != "" {
				w.inLine = true
			}
		case html.ElementNode:
			switch c.DataAtom {
			case atom.Table, atom.Pre:
				// Markdown cells hold neither a table nor a code block.
				w.nested = true
				return
			case atom.Br:
				w.brk()
				continue
			case atom.Img, atom.Picture, atom.Video, atom.Audio, atom.Svg, atom.Iframe, atom.Object, atom.Embed, atom.Canvas, atom.Input:
				w.media = true
			}
			block := isBlock(c.DataAtom)
			if block {
				w.brk()
			}
			w.node(c)
			if block {
				w.brk()
			}
		}
	}
	if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		w.brk()
	}
}

// collapseBytes is collapse(string(b)) without the string of b: the
// text with its white space collapsed is written to *scratch, then
// taken as a string, in one pass over b (collapse reads the fields of a
// text that needs it rune by rune).
func collapseBytes(b []byte, scratch *[]byte) string {
	t := bytes.TrimSpace(b)
	out := (*scratch)[:0]
	// need: collapse rewrites t (needsCollapse): a byte over 0x7f, a
	// space other than ' ', or two ' ' in a row; without one it keeps t
	// as it stands, even a '\v' inside, which the fields split on.
	need, space := false, false
	for i := 0; i < len(t); {
		c := t[i]
		if c >= utf8.RuneSelf {
			need = true
			r, size := utf8.DecodeRune(t[i:])
			if unicode.IsSpace(r) {
				space = true
			} else {
				if space {
					out = append(out, ' ')
					space = false
				}
				out = append(out, t[i:i+size]...)
			}
			i += size
			continue
		}
		if asciiBlank[c] {
			if c != ' ' && c != '\v' || c == ' ' && i > 0 && t[i-1] == ' ' {
				need = true
			}
			space = true
			i++
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		// The run of ASCII bytes that are not blank from c, copied at
		// once.
		j := i + 1
		for j < len(t) && t[j] < utf8.RuneSelf && !asciiBlank[t[j]] {
			j++
		}
		out = append(out, t[i:j]...)
		i = j
	}
	*scratch = out
	if !need {
		return string(t)
	}
	return string(out)
}

// asciiBlank are the ASCII bytes unicode.IsSpace accepts.
var asciiBlank = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// kindOf classifies a cell's collapsed text.
func kindOf(s string) cellKind {
	if s == "" {
		return kindEmpty
	}
	// Each of these is five bytes or fewer, and a longer text lowers to
	// none of them (only ASCII letters lower to their letters).
	if len(s) <= len("$ —") {
		switch strings.ToLower(s) {
		case "—", "–", "-", "−", "$—", "$ —", "$-", "$ -", "n/a", "nm", "n/m":
			return kindNil
		}
	}
	if len(s) == 4 && (s[:2] == "19" || s[:2] == "20") && isDigits(s) {
		return kindYear
	}
	t := strings.TrimPrefix(s, "(")
	for _, cur := range []string{"US$", "C$", "A$", "$", "€", "£", "¥"} {
		if strings.HasPrefix(t, cur) {
			t = strings.TrimLeft(t[len(cur):], " ")
			break
		}
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "("), "-")
	t = strings.TrimPrefix(t, "−")
	t = strings.TrimSuffix(t, "%")
	t = strings.TrimSuffix(t, ")")
	t = strings.TrimSuffix(t, "%")
	if t == "" || t[0] < '0' || t[0] > '9' || t[len(t)-1] < '0' || t[len(t)-1] > '9' {
		return kindText
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; (c < '0' || c > '9') && c != ',' && c != '.' {
			return kindText
		}
	}
	return kindAmount
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// prefixes and suffixes are what financial tables put in a cell of its
// own beside a figure.
var (
	prefixes = []string{"$", "US$", "C$", "A$", "€", "£", "¥", "(", "$(", "($"}
	suffixes = []string{")", "%", ")%", "%)"}
)

// mergeAffixes joins, within one row, a "$" or "(" cell to the next cell
// with content and a ")" or "%" cell to the previous one, when that cell
// is a figure; the figure's cell then covers both grid positions.
func mergeAffixes(cells []tcell, row []int) {
	for k, i := range row {
		c := &cells[i]
		if c.empty() || c.kind != kindText {
			continue
		}
		switch {
		case slices.Contains(prefixes, c.text):
			if j := nextContent(cells, row, k, 1); j >= 0 && cells[j].figure() {
				d := &cells[j]
				d.prefix = c.text + d.prefix
				d.cols += d.col - c.col
				d.col = c.col
				c.merged = true
			}
		case slices.Contains(suffixes, c.text):
			if j := nextContent(cells, row, k, -1); j >= 0 && (cells[j].figure() || cells[j].prefix != "") {
				d := &cells[j]
				d.suffix += c.text
				d.cols = c.col + c.cols - d.col
				c.merged = true
			}
		}
	}
}

// nextContent returns the index of the nearest cell of row after
// (step 1) or before (step -1) position k that has content, or -1.
func nextContent(cells []tcell, row []int, k, step int) int {
	for k += step; k >= 0 && k < len(row); k += step {
		if !cells[row[k]].empty() {
			return row[k]
		}
	}
	return -1
}

// logicalColumns groups the grid columns into the columns of the output
// and sets each cell's first and last logical column; it returns their
// number. The edges of cells with content cut the grid into segments; a
// segment that some cell covers exactly is a column of its own, a
// segment only covered by wider cells (a spacer under a spanning
// heading) joins the neighbour those cells also cover, and a segment no
// cell covers (an empty spacer column) is dropped.
func logicalColumns(cells []tcell) int {
	var edges []int
	for i := range cells {
		if c := &cells[i]; !c.empty() {
			edges = append(edges, c.col, c.col+c.cols)
		}
	}
	slices.Sort(edges)
	edges = slices.Compact(edges)
	if len(edges) < 2 {
		return 0
	}
	segs := len(edges) - 1
	seg := func(col int) int { s, _ := slices.BinarySearch(edges, col); return s }
	covered := make([]bool, segs)
	exact := make([]bool, segs)
	loneLeft := make([]bool, segs)  // some cell covering it stops at its left edge
	loneRight := make([]bool, segs) // some cell covering it stops at its right edge
	for i := range cells {
		c := &cells[i]
		if c.empty() {
			continue
		}
		a, b := seg(c.col), seg(c.col+c.cols)
		c.first, c.last = a, b-1
		if b-a == 1 {
			exact[a] = true
		}
		for s := a; s < b; s++ {
			covered[s] = true
		}
		loneLeft[a] = true
		loneRight[b-1] = true
	}
	// A segment that no cell covers alone goes to the side its cells
	// all reach: left first, else right, else left when it can.
	const (
		toLeft = iota + 1
		toRight
	)
	side := make([]int, segs) // 0: a column of its own, or dropped
	for s := range segs {
		switch {
		case !covered[s] || exact[s]:
		case s > 0 && !loneLeft[s]:
			side[s] = toLeft
		case s+1 < segs && !loneRight[s]:
			side[s] = toRight
		case s > 0 && covered[s-1]:
			side[s] = toLeft
		case s+1 < segs && covered[s+1]:
			side[s] = toRight
		}
	}
	// joinLeft[s]: segment s belongs to the same column as segment s-1.
	joinLeft := make([]bool, segs)
	for s := 1; s < segs; s++ {
		joinLeft[s] = side[s] == toLeft || side[s-1] == toRight
	}
	col := make([]int, segs)
	n := -1
	for s := range segs {
		switch {
		case !covered[s]:
			col[s] = -1
			continue
		case s == 0 || !joinLeft[s]:
			n++
		}
		col[s] = n
	}
	for i := range cells {
		if c := &cells[i]; !c.empty() {
			c.first, c.last = col[c.first], col[c.last]
		}
	}
	return n + 1
}

// headerRows picks, among the rows with content (indexes into rows), the
// rows that make the header (head) and the rows above them that move out
// of the table as paragraphs (pre: a title, a note). A table that opens
// with rows of <th> cells takes its header from them (see thHeader).
// Otherwise, with figures (firstData >= 0), see figuresHeader.
func headerRows(cells []tcell, byRow [][]int, rows []int, firstData int, figures []bool, width int) (pre, head []int) {
	if pre, head = thHeader(cells, byRow, rows, width); head != nil || firstData < 0 {
		return pre, head
	}
	return figuresHeader(cells, byRow, rows, firstData, figures, width)
}

// thHeader takes the leading rows of <th> cells: titles (one cell across
// the table) above other header rows go to pre; the first other row is
// the header, and the next ones join it while the row above has headings
// spanning columns ("2024" over "Q1 Q2 Q3 Q4"). Further <th> rows (a
// second header of a transposed table) stay in the body.
func thHeader(cells []tcell, byRow [][]int, rows []int, width int) (pre, head []int) {
	n := 0
	for n < len(rows) && allHeader(cells, byRow[rows[n]]) {
		n++
	}
	k := 0
	for k < n-1 && k < maxTitleRows && title(cells, byRow[rows[k]], width) {
		k++
	}
	if k == n {
		return nil, nil
	}
	head = rows[k : k+1]
	for j := k + 1; j < n && len(head) < maxHeaderRows && spans(cells, byRow[rows[j-1]]); j++ {
		head = rows[k : j+1]
	}
	return rows[:k], head
}

// title: the row's content is one cell spanning every column.
func title(cells []tcell, row []int, width int) bool {
	if contentCells(cells, row) != 1 {
		return false
	}
	c := &cells[firstContent(cells, row)]
	return width > 1 && c.first == 0 && c.last == width-1
}

func firstContent(cells []tcell, row []int) int {
	for _, i := range row {
		if !cells[i].empty() {
			return i
		}
	}
	return -1
}

// figuresHeader finds the header of a table of figures laid out without
// <th>: the last row above the first row of figures that has headings
// over columns of figures (section labels of the first column, between
// the header and the figures, stay in the body), and the rows just above
// it that have such headings and either an empty first column or a
// heading spanning columns ("Thirteen Weeks Ended" over two dates), up
// to maxHeaderRows. Above the header there may only be titles (a row of
// one cell), which go to pre; rows of several cells there mean the rows
// found are data, and there is no header.
func figuresHeader(cells []tcell, byRow [][]int, rows []int, firstData int, figures []bool, width int) (pre, head []int) {
	end := -1 // last header row, as an index into rows
	for k := firstData - 1; k >= 0; k-- {
		if overFigures(cells, byRow[rows[k]], figures, width) {
			end = k
			break
		}
		if !labelOnly(cells, byRow[rows[k]]) {
			break
		}
	}
	if end < 0 {
		return nil, nil
	}
	start := end
	for start > 0 && end-start+1 < maxHeaderRows {
		row := byRow[rows[start-1]]
		if !overFigures(cells, row, figures, width) || !spans(cells, row) && !emptyFirst(cells, row) {
			break
		}
		start--
	}
	if start > maxTitleRows {
		return nil, nil
	}
	for _, r := range rows[:start] {
		if contentCells(cells, byRow[r]) > 1 {
			return nil, nil
		}
		pre = append(pre, r)
	}
	return pre, rows[start : end+1]
}

// spans: a cell of the row spans several logical columns.
func spans(cells []tcell, row []int) bool {
	for _, i := range row {
		if c := &cells[i]; !c.empty() && c.last > c.first {
			return true
		}
	}
	return false
}

// emptyFirst: the row has no content in the first logical column.
func emptyFirst(cells []tcell, row []int) bool {
	for _, i := range row {
		if c := &cells[i]; !c.empty() && c.first == 0 {
			return false
		}
	}
	return true
}

func contentCells(cells []tcell, row []int) int {
	n := 0
	for _, i := range row {
		if !cells[i].empty() {
			n++
		}
	}
	return n
}

func allHeader(cells []tcell, row []int) bool {
	seen := false
	for _, i := range row {
		if c := &cells[i]; !c.empty() {
			if !c.header {
				return false
			}
			seen = true
		}
	}
	return seen
}

// overFigures: the row has a heading over a column of figures and is
// not a title (one cell spanning every column); its cells are short.
func overFigures(cells []tcell, row []int, figures []bool, width int) bool {
	over := false
	for _, i := range row {
		c := &cells[i]
		if c.empty() {
			continue
		}
		if len(c.text) > maxHeaderChars {
			return false
		}
		over = over || slices.Contains(figures[c.first:c.last+1], true)
	}
	return over && !title(cells, row, width)
}

// labelOnly: the row's content is all in the first column ("ASSETS",
// "Revenues:"), a section label between the header and the figures.
func labelOnly(cells []tcell, row []int) bool {
	for _, i := range row {
		if c := &cells[i]; !c.empty() && c.first != 0 {
			return false
		}
	}
	return true
}

// rebuild replaces the rows of t with the normalised ones: a <thead>
// with the header (when there is one), then a <tbody> of rows of width
// cells. Rows in pre become paragraphs before the table.
func rebuild(t *html.Node, cells []tcell, byRow [][]int, rows, pre, head []int, figures []bool, width int) {
	var caption *html.Node
	for c := t.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && c.DataAtom == atom.Caption && caption == nil {
			caption = c
		}
		t.RemoveChild(c)
		c = next
	}
	for _, r := range pre {
		p := element(atom.P)
		for _, i := range byRow[r] {
			if c := &cells[i]; !c.empty() {
				if p.FirstChild != nil {
					p.AppendChild(textNode(" "))
				}
				moveContent(p, c)
			}
		}
		t.Parent.InsertBefore(p, t)
	}
	if caption != nil {
		if hasBlock(caption) {
			// The converter lays a table with blocks in its caption out
			// as text, its cells run together ("Part-time$455/hour"):
			// the caption becomes a block before the table.
			div := element(atom.Div)
			moveChildren(div, caption)
			t.Parent.InsertBefore(div, t)
		} else {
			t.AppendChild(caption)
		}
	}
	skip := make(map[int]bool, len(pre)+len(head))
	for _, r := range pre {
		skip[r] = true
	}
	for _, r := range head {
		skip[r] = true
	}
	var first *html.Node // the row the converter takes alignments from
	switch {
	case len(head) == 1:
		first = newRow(cells, byRow[head[0]], atom.Th, width)
	case len(head) > 1:
		first = mergedHeader(cells, byRow, head, width)
	}
	if first != nil {
		thead := element(atom.Thead)
		thead.AppendChild(first)
		t.AppendChild(thead)
	}
	tbody := element(atom.Tbody)
	for _, r := range rows {
		if skip[r] {
			continue
		}
		tr := newRow(cells, byRow[r], atom.Td, width)
		if first == nil {
			first = tr
		}
		tbody.AppendChild(tr)
	}
	t.AppendChild(tbody)
	if first == nil {
		return
	}
	j := 0
	for td := first.FirstChild; td != nil; td = td.NextSibling {
		if j > 0 && figures[j] && attr(td, "align") == "" {
			setAttr(td, "align", "right")
		}
		j++
	}
}

// newRow returns a row of width cells (tag <td> or <th>) holding the
// content of the cells of row, each in its first logical column.
func newRow(cells []tcell, row []int, tag atom.Atom, width int) *html.Node {
	tr := element(atom.Tr)
	slots := make([]*html.Node, width)
	for j := range slots {
		slots[j] = element(tag)
		tr.AppendChild(slots[j])
	}
	for _, i := range row {
		c := &cells[i]
		if c.empty() {
			continue
		}
		td := slots[c.first]
		if td.FirstChild != nil {
			td.AppendChild(textNode(" "))
		}
		if a := attr(c.n, "align"); a != "" && attr(td, "align") == "" {
			setAttr(td, "align", a)
		}
		moveContent(td, c)
	}
	return tr
}

// mergedHeader returns one header row for the stacked header rows head:
// each column gets the text of every header cell above it, top to
// bottom, so a heading spanning two columns ("Thirteen Weeks Ended")
// heads both ("Thirteen Weeks Ended November 2, 2024").
func mergedHeader(cells []tcell, byRow [][]int, head []int, width int) *html.Node {
	// A heading heads every column it spans when other header rows
	// split those columns; otherwise, as a lone wide heading, only the
	// first one, so that it is not repeated across the table.
	split := make([]bool, width) // a cell of the header starts in the column
	for _, r := range head {
		for _, i := range byRow[r] {
			if c := &cells[i]; !c.empty() {
				split[c.first] = true
			}
		}
	}
	titles := make([][]string, width)
	for _, r := range head {
		for _, i := range byRow[r] {
			c := &cells[i]
			if c.empty() {
				continue
			}
			last := c.first
			if slices.Contains(split[c.first+1:c.last+1], true) {
				last = c.last
			}
			for j := c.first; j <= last; j++ {
				titles[j] = append(titles[j], c.prefix+c.text+c.suffix)
			}
		}
	}
	tr := element(atom.Tr)
	for j := range width {
		th := element(atom.Th)
		if s := strings.Join(titles[j], " "); s != "" {
			th.AppendChild(textNode(s))
		}
		tr.AppendChild(th)
	}
	return tr
}

// unwrap replaces t, a table laying out one column, with a <div> per
// cell with content, the content as it is (lines and blocks kept).
func unwrap(t *html.Node, cells []tcell) {
	for i := range cells {
		if c := &cells[i]; !c.empty() {
			div := element(atom.Div)
			moveChildren(div, c.n)
			t.Parent.InsertBefore(div, t)
		}
	}
	t.Parent.RemoveChild(t)
}

// moveContent puts the content of c, kept on one line, at the end of dst
// between the affixes joined to it.
func moveContent(dst *html.Node, c *tcell) {
	if c.prefix != "" {
		dst.AppendChild(textNode(c.prefix))
	}
	flattenCell(c.n)
	moveChildren(dst, c.n)
	if c.suffix != "" {
		dst.AppendChild(textNode(c.suffix))
	}
}

// moveChildren moves the children of src to the end of dst, without the
// white space around them.
func moveChildren(dst, src *html.Node) {
	trimSpace(src, true)
	trimSpace(src, false)
	for k := src.FirstChild; k != nil; {
		next := k.NextSibling
		src.RemoveChild(k)
		dst.AppendChild(k)
		k = next
	}
}

// trimSpace removes the white space (no-break spaces included, which the
// converter keeps) at the start (left) or end of the text of n, so that
// "293,618&nbsp;" meets its ")" and the cell its border. It reports
// whether it reached text or an element that ends the trimming.
func trimSpace(n *html.Node, left bool) bool {
	c := n.LastChild
	if left {
		c = n.FirstChild
	}
	for c != nil {
		switch c.Type {
		case html.TextNode:
			if left {
				c.Data = strings.TrimLeftFunc(c.Data, unicode.IsSpace)
			} else {
				c.Data = strings.TrimRightFunc(c.Data, unicode.IsSpace)
			}
			if c.Data != "" {
				return true
			}
		case html.ElementNode:
			if c.FirstChild == nil || trimSpace(c, left) {
				if c.FirstChild != nil || c.DataAtom == atom.Img {
					return true
				}
			}
		}
		if left {
			c = c.NextSibling
		} else {
			c = c.PrevSibling
		}
	}
	return false
}

// flattenCell keeps the content of n on one line: <br> becomes a space,
// block elements become spans (headings bold) set apart by spaces, list
// items are joined by "; ", rules go.
func flattenCell(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch {
			case c.DataAtom == atom.Br:
				n.InsertBefore(textNode(" "), c)
				n.RemoveChild(c)
			case c.DataAtom == atom.Hr:
				n.RemoveChild(c)
			case isBlock(c.DataAtom) || c.DataAtom == atom.Center:
				flattenCell(c)
				if c.DataAtom == atom.Li {
					// Items of a list stay apart: "a; b; c".
					if p := previousElement(c); p != nil {
						for p.NextSibling != c {
							n.RemoveChild(p.NextSibling) // white space
						}
						n.InsertBefore(textNode("; "), c)
					}
				} else {
					n.InsertBefore(textNode(" "), c)
					n.InsertBefore(textNode(" "), next)
				}
				switch c.DataAtom {
				case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
					c.Data, c.DataAtom = "strong", atom.Strong // a heading keeps its weight
				default:
					c.Data, c.DataAtom = "span", atom.Span
				}
			default:
				flattenCell(c)
			}
		}
		c = next
	}
}

// previousElement returns the element before n when only white space
// separates them, or nil.
func previousElement(n *html.Node) *html.Node {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		switch {
		case p.Type == html.ElementNode:
			return p
		case p.Type == html.TextNode && strings.TrimSpace(p.Data) == "":
		default:
			return nil
		}
	}
	return nil
}

func element(a atom.Atom) *html.Node {
	return &html.Node{Type: html.ElementNode, Data: a.String(), DataAtom: a}
}

func textNode(s string) *html.Node {
	return &html.Node{Type: html.TextNode, Data: s}
}

// hasBlock tells whether n holds a block element.
func hasBlock(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (isBlock(c.DataAtom) || hasBlock(c)) {
			return true
		}
	}
	return false
}
