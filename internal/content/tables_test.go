package content

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The tables below are written in the shapes SEC filings and earnings
// releases use (Workiva and older EDGAR exports): a label spanning three
// grid columns, "$" and ")" in cells of their own, empty spacer columns
// and rows, dates broken by <br>, a period heading spanning a value
// column and its spacer.

// incomeStatement is an earnings-release table: 1 label column of
// colspan 3, then per period a "$" cell, the value, a ")" cell and a
// spacer of colspan 3.
const incomeStatement = `<table style="width:100%">
<tr><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td><td></td></tr>
<tr><td colspan="3">&#160;</td><td colspan="9" style="text-align:center">Thirteen Weeks Ended</td><td colspan="3"></td></tr>
<tr><td colspan="3">&#160;</td><td colspan="3">November 2,<br>2024</td><td colspan="3"></td><td colspan="3">October 28,<br>2023</td><td colspan="3"></td></tr>
<tr><td colspan="3"></td><td colspan="3"></td><td colspan="3"></td><td colspan="3"></td><td colspan="3"></td></tr>
<tr><td colspan="3"><div>Net sales</div></td><td>$</td><td>293,618&#160;</td><td></td><td colspan="3"></td><td>$</td><td>303,457&#160;</td><td></td><td colspan="3"></td></tr>
<tr><td colspan="3">Gross profit</td><td colspan="2">140,071&#160;</td><td></td><td colspan="3"></td><td colspan="2">147,215&#160;</td><td></td><td colspan="3"></td></tr>
<tr><td colspan="3">OPERATING EXPENSES:</td><td colspan="3"></td><td colspan="3"></td><td colspan="3"></td><td colspan="3"></td></tr>
<tr><td colspan="3"><p>Other expense,</p><p>net</p></td><td colspan="2">(1,234</td><td>)</td><td colspan="3"></td><td colspan="2">(987</td><td>)</td><td colspan="3"></td></tr>
<tr><td colspan="3">Gross margin</td><td colspan="2">47.7</td><td>%</td><td colspan="3"></td><td colspan="2">48.5</td><td>%</td><td colspan="3"></td></tr>
<tr><td colspan="3">Net income</td><td>$</td><td>44,172</td><td></td><td colspan="3"></td><td>$</td><td>—</td><td></td><td colspan="3"></td></tr>
</table>`

func TestTablesFinancial(t *testing.T) {
	doc := convertBody(t, "<p>Results for the quarter.</p>"+incomeStatement)
	want := [][]string{
		{"", "Thirteen Weeks Ended November 2, 2024", "Thirteen Weeks Ended October 28, 2023"},
		{"Net sales", "$293,618", "$303,457"},
		{"Gross profit", "140,071", "147,215"},
		{"OPERATING EXPENSES:", "", ""},
		{"Other expense, net", "(1,234)", "(987)"},
		{"Gross margin", "47.7%", "48.5%"},
		{"Net income", "$44,172", "$—"},
	}
	tables := markdownTables(doc.Markdown)
	if len(tables) != 1 || !reflect.DeepEqual(tables[0], want) {
		t.Fatalf("got tables %q, want one: %q\nmarkdown:\n%s", tables, want, doc.Markdown)
	}
	// Figures are right-aligned under their heading.
	if !strings.Contains(doc.Markdown, "|---|--:|--:|") {
		t.Errorf("figure columns not right-aligned:\n%s", doc.Markdown)
	}
	if !strings.Contains(doc.Text, "Gross profit 140,071 147,215") {
		t.Errorf("text runs cells together:\n%s", doc.Text)
	}
	checkNoGlue(t, doc.Markdown)
}

// TestTablesHeaderAboveLabels: a header row of its own ("ASSETS" over
// the label column, dates over the values), then a section label in the
// first column before the figures; a title row spanning the table and a
// note above the header leave the table as paragraphs, in order.
func TestTablesHeaderAboveLabels(t *testing.T) {
	doc := convertBody(t, `<table>
<tr><td colspan="4" align="center"><b>CONSOLIDATED BALANCE SHEETS</b></td></tr>
<tr><td colspan="4">(in thousands)</td></tr>
<tr><td>ASSETS</td><td>November 2,<br>2024</td><td></td><td>February 3,<br>2024</td></tr>
<tr><td>CURRENT ASSETS:</td><td></td><td></td><td></td></tr>
<tr><td>Cash</td><td>$ 301,958</td><td></td><td>$ 268,213</td></tr>
<tr><td>Less depreciation</td><td>(365,241)</td><td></td><td>(360,200)</td></tr>
</table>`)
	want := [][]string{
		{"ASSETS", "November 2, 2024", "February 3, 2024"},
		{"CURRENT ASSETS:", "", ""},
		{"Cash", "$ 301,958", "$ 268,213"},
		{"Less depreciation", "(365,241)", "(360,200)"},
	}
	if got := markdownTables(doc.Markdown); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("got %q, want %q\nmarkdown:\n%s", got, want, doc.Markdown)
	}
	title := strings.Index(doc.Markdown, "**CONSOLIDATED BALANCE SHEETS**")
	note := strings.Index(doc.Markdown, "(in thousands)")
	table := strings.Index(doc.Markdown, "| ASSETS")
	if title < 0 || note < title || table < note {
		t.Errorf("title and note not kept above the table:\n%s", doc.Markdown)
	}
}

// TestTablesHeadingOverSpacer: the heading spans the figure's column and
// an empty column the figures never use (as in proxy vote tables).
func TestTablesHeadingOverSpacer(t *testing.T) {
	doc := convertBody(t, `<table>
<tr><td>Director Nominee</td><td>&#160;&#160;</td><td colspan="2" align="center">Votes For</td><td>&#160;</td><td colspan="2" align="center">Votes Withheld</td></tr>
<tr><td><p>Ada Lovelace</p></td><td>&#160;&#160;</td><td>&#160;</td><td align="right">2,300,385,739</td><td>&#160;</td><td>&#160;</td><td align="right">21,926,604</td></tr>
<tr><td><p>Alan Turing</p></td><td>&#160;&#160;</td><td>&#160;</td><td align="right">1,859,138,624</td><td>&#160;</td><td>&#160;</td><td align="right">463,173,719</td></tr>
</table>`)
	want := [][]string{
		{"Director Nominee", "Votes For", "Votes Withheld"},
		{"Ada Lovelace", "2,300,385,739", "21,926,604"},
		{"Alan Turing", "1,859,138,624", "463,173,719"},
	}
	if got := markdownTables(doc.Markdown); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("got %q, want %q\nmarkdown:\n%s", got, want, doc.Markdown)
	}
}

func TestTablesRowspan(t *testing.T) {
	doc := convertBody(t, `<table>
<thead><tr><th rowspan="2">Segment</th><th colspan="2">Revenue</th></tr>
<tr><th>2024</th><th>2023</th></tr></thead>
<tr><td rowspan="2">Retail</td><td>1,200</td><td>1,100</td></tr>
<tr><td>300</td><td>250</td></tr>
<tr><td>Online</td><td>900</td><td>700</td></tr>
</table>`)
	want := [][]string{
		{"Segment", "Revenue 2024", "Revenue 2023"},
		{"Retail", "1,200", "1,100"},
		{"", "300", "250"},
		{"Online", "900", "700"},
	}
	if got := markdownTables(doc.Markdown); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("got %q, want %q\nmarkdown:\n%s", got, want, doc.Markdown)
	}
}

// TestTablesLayout: tables that lay out a page stay layout, and the data
// tables inside them become markdown tables.
func TestTablesLayout(t *testing.T) {
	data := `<table><tr><td>Quarter</td><td>Revenue</td></tr><tr><td>Q1</td><td>1,234</td></tr><tr><td>Q2</td><td>2,345</td></tr></table>`
	for _, c := range []struct{ name, body string }{
		{"nested", `<table><tr><td><p>Left column</p></td><td>` + data + `</td></tr></table>`},
		{"div in layout cell", `<table width="100%"><tr><td><div class="x"><div>` + data + `</div></div></td><td><p>Sidebar</p></td></tr></table>`},
		{"presentation", `<table role="presentation"><tr><td><p>Left column</p><p>More</p></td><td>Right</td></tr></table>` + data},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := convertBody(t, c.body)
			tables := markdownTables(doc.Markdown)
			want := [][]string{{"Quarter", "Revenue"}, {"Q1", "1,234"}, {"Q2", "2,345"}}
			if len(tables) != 1 || !reflect.DeepEqual(tables[0], want) {
				t.Errorf("got tables %q, want only the data table %q\nmarkdown:\n%s", tables, want, doc.Markdown)
			}
			if strings.Contains(doc.Markdown, "| Left column") || strings.Contains(doc.Markdown, "| Right") {
				t.Errorf("layout table became a markdown table:\n%s", doc.Markdown)
			}
		})
	}
}

// TestTablesOneColumn: a table whose content sits in one column (a
// boxed note, a column of check boxes) becomes blocks, lines kept.
func TestTablesOneColumn(t *testing.T) {
	doc := convertBody(t, `<table><tr><td></td><td>Not Applicable</td><td></td></tr>
<tr><td></td><td>(Former name)<br>if changed</td><td></td></tr></table>`)
	if strings.Contains(doc.Markdown, "|") {
		t.Errorf("one-column table rendered as a table:\n%s", doc.Markdown)
	}
	if !strings.Contains(doc.Markdown, "Not Applicable\n\n(Former name)  \nif changed") {
		t.Errorf("blocks or lines lost:\n%s", doc.Markdown)
	}
}

// TestTablesCells: cell content stays on one line whatever it holds; links
// and emphasis survive; lists read as lists.
func TestTablesCells(t *testing.T) {
	doc := convertBody(t, `<table>
<tr><th>Name</th><th>Role</th><th>Links</th></tr>
<tr><td><p><b>Erik B. Nordstrom</b></p><p>Chief Executive Officer</p></td><td>Director<br>Officer</td>
<td><ul><li><a href="/a">Filing</a></li><li><a href="/b">Exhibit</a></li></ul></td></tr>
<tr><td><h3>Peter</h3></td><td><blockquote>President</blockquote><hr></td><td>none</td></tr>
</table>`)
	want := [][]string{
		{"Name", "Role", "Links"},
		{"**Erik B. Nordstrom** Chief Executive Officer", "Director Officer", "[Filing](https://example.com/a); [Exhibit](https://example.com/b)"},
		{"**Peter**", "President", "none"},
	}
	if got := markdownTables(doc.Markdown); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("got %q, want %q\nmarkdown:\n%s", got, want, doc.Markdown)
	}
}

// TestTablesLeftAlone: code blocks in cells, tables inside <pre>, and
// tables of labels and values with a few amounts keep their form.
func TestTablesLeftAlone(t *testing.T) {
	doc := convertBody(t, `<table><tr><td>Example</td><td><pre>a := 1
b := 2</pre></td></tr></table>`)
	if !strings.Contains(doc.Markdown, "```\na := 1\nb := 2\n```") {
		t.Errorf("code block in a cell lost its lines:\n%s", doc.Markdown)
	}

	doc = convertBody(t, "<pre>Result\n<table><tr><td>1.</td><td>   </td><td>Team A</td></tr></table></pre>")
	if !strings.Contains(doc.Markdown, "1.   Team A") {
		t.Errorf("table inside <pre> changed:\n%s", doc.Markdown)
	}

	doc = convertBody(t, `<table class="infobox">
<tr><td>Capital</td><td><a href="/w">Wellington</a></td></tr>
<tr><td>Largest city</td><td>Auckland</td></tr>
<tr><td>Population</td><td>4,933,210</td></tr>
<tr><td>Currency</td><td>New Zealand dollar</td></tr>
<tr><td>Density</td><td>18.2/km2</td></tr>
</table>`)
	want := [][]string{
		{"", ""},
		{"Capital", "[Wellington](https://example.com/w)"},
		{"Largest city", "Auckland"},
		{"Population", "4,933,210"},
		{"Currency", "New Zealand dollar"},
		{"Density", "18.2/km2"},
	}
	if got := markdownTables(doc.Markdown); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("got %q, want %q\nmarkdown:\n%s", got, want, doc.Markdown)
	}
}

// TestTablesMainContent: in an earnings release, main-content extraction
// keeps the statement, and it comes out as a table.
func TestTablesMainContent(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Example Corp reports third quarter results</title></head><body>
<nav><a href="/">Home</a> <a href="/ir">Investors</a></nav><main>
<h1>Example Corp reports third quarter results</h1>`)
	for range 4 {
		b.WriteString(`<p>Net sales for the quarter decreased 3.2 percent to $293.6 million, from $303.5 million for the prior year quarter, while gross profit, operating income and earnings per share declined, as the company said in its release today.</p>`)
	}
	b.WriteString(incomeStatement + `</main><footer>Copyright Example Corp</footer></body></html>`)
	doc, err := HTML([]byte(b.String()), "https://example.com/ir/q3", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	tables := markdownTables(doc.Markdown)
	if len(tables) != 1 || len(tables[0]) != 7 || !reflect.DeepEqual(tables[0][2], []string{"Gross profit", "140,071", "147,215"}) {
		t.Fatalf("got tables %q\nmarkdown:\n%s", tables, doc.Markdown)
	}
	checkNoGlue(t, doc.Markdown)
}

func TestKindOf(t *testing.T) {
	for s, want := range map[string]cellKind{
		"":                 kindEmpty,
		"1,234":            kindAmount,
		"$1.05":            kindAmount,
		"$ 301,958":        kindAmount,
		"(365,241":         kindAmount,
		"(365,241)":        kindAmount,
		"12.5%":            kindAmount,
		"-3":               kindAmount,
		"99.1":             kindAmount,
		"2024":             kindYear,
		"—":                kindNil,
		"n/a":              kindNil,
		"$":                kindText,
		")":                kindText,
		"Q4 2024":          kindText,
		"001-36054":        kindText,
		"18.2/km2":         kindText,
		"1.2.3":            kindAmount,
		"November 2, 2024": kindText,
	} {
		if got := kindOf(s); got != want {
			t.Errorf("kindOf(%q) = %d, want %d", s, got, want)
		}
	}
}

func convertBody(t *testing.T, body string) *Document {
	t.Helper()
	doc, err := HTML([]byte("<html><body>"+body+"</body></html>"), "https://example.com/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// markdownTables returns the cells of every markdown table in md, row by
// row, the header row first (delimiter rows left out).
func markdownTables(md string) [][][]string {
	var tables [][][]string
	var cur [][]string
	for line := range strings.SplitSeq(md+"\n", "\n") {
		if !strings.HasPrefix(line, "|") {
			if cur != nil {
				tables = append(tables, cur)
				cur = nil
			}
			continue
		}
		if delimiterRow.MatchString(line) {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		cur = append(cur, cells)
	}
	return tables
}

var delimiterRow = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+$`)

// glued finds a label touching a figure or two figures touching: what a
// table run together as text looks like ("Gross profit140,071").
var glued = regexp.MustCompile(`\p{L}[$(]?\d{1,3}(,\d{3})+|\p{L}\$\d|\d,\d{3}\d|\d\)\(?\$?\d|%\d`)

func checkNoGlue(t *testing.T, md string) {
	t.Helper()
	for line := range strings.SplitSeq(md, "\n") {
		if glued.MatchString(line) {
			t.Errorf("glued line %q", line)
		}
	}
}

// TestTablesNodeMarkdown: a monitor's region is converted on its own;
// its tables come out as in HTML, even when the region is the table.
func TestTablesNodeMarkdown(t *testing.T) {
	md := nodeMarkdownOf(t, incomeStatement)
	if got := markdownTables(md); len(got) != 1 || len(got[0]) != 7 || !reflect.DeepEqual(got[0][2], []string{"Gross profit", "140,071", "147,215"}) {
		t.Errorf("got tables %q\nmarkdown:\n%s", got, md)
	}
	md = nodeMarkdownOf(t, `<table><tr><td></td><td>Not Applicable</td></tr><tr><td></td><td>(Former name)</td></tr></table>`)
	if md != "Not Applicable\n\n(Former name)" {
		t.Errorf("one-column region: got %q", md)
	}
}

// nodeMarkdownOf converts the first table of page, detached from its
// tree as a monitor's region copy is.
func nodeMarkdownOf(t *testing.T, page string) string {
	t.Helper()
	root, err := html.Parse(strings.NewReader("<html><body>" + page + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	table := findElement(root, atom.Table)
	table.Parent.RemoveChild(table)
	return NodeMarkdown(table, "https://example.com/")
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == a {
			return c
		}
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

// TestTablesEmpty: a table with nothing to show (spacers, a rule drawn
// with borders) goes; one holding only an image stays as a block.
func TestTablesEmpty(t *testing.T) {
	doc := convertBody(t, `<p>Before</p><table><tr><td>&#160;</td><td></td></tr><tr><td style="border-top:1px solid"></td><td></td></tr></table><p>After</p>`)
	if doc.Markdown != "Before\n\nAfter" {
		t.Errorf("got %q", doc.Markdown)
	}
	doc = convertBody(t, `<table><tr><td></td><td><img src="/logo.png" alt="Logo"></td></tr></table>`)
	if doc.Markdown != "![Logo](https://example.com/logo.png)" {
		t.Errorf("got %q", doc.Markdown)
	}
}

// FuzzTables feeds table markup (spans, nesting, affixes) through the
// whole pipeline and a region's conversion: neither may panic.
func FuzzTables(f *testing.F) {
	for _, seed := range []string{
		incomeStatement,
		`<table><tr><td rowspan="0">a</td><td colspan="0">$</td><td>(1</td><td>)</td></tr><tr><td>%</td></tr></table>`,
		`<table><tr><th colspan="3">T</th></tr><tr><th>a</th><th rowspan="3">b</th></tr><tr><td><table><tr><td>x</td></tr></table></td></tr></table>`,
		`<table><caption>c</caption><tr><td><ul><li>a<li>b</ul></td><td><br><hr><h2>h</h2></td></tr></table>`,
		`<pre><table><tr><td>1</td></tr></table></pre><table role="presentation"><tr><td>1</td><td>2</td></tr></table>`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if _, err := HTML([]byte("<html><body>"+body+"</body></html>"), "https://example.com/", Options{IncludeHTML: true}); err != nil {
			return
		}
		root, err := html.Parse(strings.NewReader(body))
		if err != nil {
			return
		}
		if table := findElement(root, atom.Table); table != nil {
			table.Parent.RemoveChild(table)
			NodeMarkdown(table, "https://example.com/")
		}
	})
}
