// Command tables measures how internal/content renders the tables of real
// SEC filings (../shared/corpus/edgar-ir): glued lines, markdown tables
// and rows, rows whose cell count differs from their header's, numbers
// without a column header, and numbers of the filing missing from the
// markdown. See README.md.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/html"

	"webacq/internal/content"
)

func main() {
	corpus := flag.String("corpus", "../shared/corpus/edgar-ir", "folder of filings (*.html)")
	full := flag.Bool("full", false, "convert the whole body (onlyMainContent=false)")
	dump := flag.String("dump", "", "print the markdown of this filing (file name) and exit")
	verbose := flag.Bool("v", false, "list every glued line, ragged row and missing number")
	flag.Parse()

	files, err := filepath.Glob(filepath.Join(*corpus, "*.html"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "no filings under %s\n", *corpus)
		os.Exit(1)
	}
	opt := content.Options{OnlyMainContent: !*full}
	if *dump != "" {
		src, err := os.ReadFile(filepath.Join(*corpus, *dump))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		doc, err := content.HTML(src, "http://fakehost/"+*dump, opt)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(doc.Markdown)
		return
	}

	mode := "main content"
	if *full {
		mode = "whole body"
	}
	fmt.Printf("%d filings, %s\n", len(files), mode)
	fmt.Printf("%-28s %6s %6s %6s %9s %6s %7s %7s %7s %9s\n", "filing", "html", "tables", "rows", "in tables", "glued", "stacked", "ragged", "unhead", "numbers")
	var sum report
	var elapsed time.Duration
	var size int
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		start := time.Now()
		doc, err := content.HTML(src, "http://fakehost/"+filepath.Base(f), opt)
		elapsed += time.Since(start)
		size += len(src)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(f), err)
			continue
		}
		r := measure(doc.Markdown, src)
		fmt.Printf("%-28s %6d %6d %6d %4d/%-4d %6d %7d %7d %7d %4d/%-4d\n", trim(filepath.Base(f), 28),
			r.htmlTables, r.tables, r.rows, r.tabled, r.amounts, len(r.glued), len(r.stacked), len(r.ragged), r.unheaded, r.numbers-len(r.missing), r.numbers)
		if *verbose {
			for _, l := range r.glued {
				fmt.Printf("    glued   %s\n", trim(l, 150))
			}
			for _, l := range r.stacked {
				fmt.Printf("    stacked %s\n", trim(l, 150))
			}
			for _, l := range r.ragged {
				fmt.Printf("    ragged  %s\n", trim(l, 150))
			}
			if len(r.missing) > 0 {
				fmt.Printf("    missing %s\n", trim(strings.Join(r.missing, " "), 150))
			}
		}
		sum.add(r)
	}
	fmt.Printf("%-28s %6d %6d %6d %4d/%-4d %6d %7d %7d %7d %4d/%-4d\n", "total",
		sum.htmlTables, sum.tables, sum.rows, sum.tabled, sum.amounts, len(sum.glued), len(sum.stacked), len(sum.ragged), sum.unheaded, sum.numbers-len(sum.missing), sum.numbers)
	fmt.Printf("pipeline %.1f ms for %d bytes, %.2f MB/s\n", elapsed.Seconds()*1000, size, float64(size)/1e6/elapsed.Seconds())
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// report holds the figures of one filing (or their sum).
type report struct {
	htmlTables int      // <table> elements of the filing
	tables     int      // markdown tables
	rows       int      // markdown table rows, header rows included
	glued      []string // lines where a label and a number, or two numbers, touch
	ragged     []string // table rows whose cell count differs from the header's
	stacked    []string // table cells holding two figures or more ("71,986 70,242")
	unheaded   int      // numbers in a table column whose header is empty
	tabled     int      // amounts of the markdown inside table rows
	amounts    int      // amounts of the markdown
	numbers    int      // amounts in the filing's visible text
	missing    []string // amounts of the filing absent from the markdown
}

func (s *report) add(r report) {
	s.htmlTables += r.htmlTables
	s.tables += r.tables
	s.rows += r.rows
	s.glued = append(s.glued, r.glued...)
	s.ragged = append(s.ragged, r.ragged...)
	s.stacked = append(s.stacked, r.stacked...)
	s.unheaded += r.unheaded
	s.tabled += r.tabled
	s.amounts += r.amounts
	s.numbers += r.numbers
	s.missing = append(s.missing, r.missing...)
}

func measure(md string, src []byte) report {
	var r report
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if isTableStart(lines, i) {
			i = table(lines, i, &r) - 1
			continue
		}
		if glued(lines[i]) {
			r.glued = append(r.glued, lines[i])
		}
	}
	text, tables := visibleText(src)
	r.htmlTables = tables
	have := make(map[string]int)
	for _, n := range amount.FindAllString(md, -1) {
		have[n]++
		r.amounts++
	}
	for _, n := range amount.FindAllString(text, -1) {
		r.numbers++
		if have[n] == 0 {
			r.missing = append(r.missing, n)
			continue
		}
		have[n]--
	}
	return r
}

// isTableStart: line i is a table row and the next line its delimiter row.
func isTableStart(lines []string, i int) bool {
	return i+1 < len(lines) && strings.HasPrefix(lines[i], "|") && delimiter.MatchString(lines[i+1])
}

var delimiter = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)

// table reads the table starting at line i and returns the line after it.
func table(lines []string, i int, r *report) int {
	r.tables++
	header := cells(lines[i])
	r.rows++
	r.tabled += len(amount.FindAllString(lines[i], -1))
	if glued(lines[i]) {
		r.glued = append(r.glued, lines[i])
	}
	j := i + 2
	for ; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
		row := cells(lines[j])
		r.rows++
		r.tabled += len(amount.FindAllString(lines[j], -1))
		if len(row) != len(header) {
			r.ragged = append(r.ragged, lines[j])
		}
		if glued(lines[j]) {
			r.glued = append(r.glued, lines[j])
		}
		for k, c := range row {
			if k > 0 && number.MatchString(c) && (k >= len(header) || header[k] == "") {
				r.unheaded++
			}
			if f := strings.Fields(c); len(f) > 1 && !slices.ContainsFunc(f, func(s string) bool { return !number.MatchString(s) }) {
				r.stacked = append(r.stacked, c)
			}
		}
	}
	return j
}

// cells splits a table row on its unescaped pipes.
func cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var out []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			cur.WriteByte(line[i])
			cur.WriteByte(line[i+1])
			i++
		case line[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// number is a table cell holding one amount: 1,234 $1.05 (365,241) 12.5%
// (a year such as 2024 alone is a header, not an amount).
var number = regexp.MustCompile(`^\(?[$€£]?\s?(\d{1,3}(,\d{3})+(\.\d+)?|\d+\.\d+|\d{1,3})\)?%?$`)

// amount finds amounts in running text: grouped thousands or decimals.
var amount = regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+`)

// glue finds a label touching a number ("Gross profit140,071",
// "Basic$0.89", "amortization(365,241)") or two numbers touching
// ("140,071147,215", "(365,241)(360,200)", "2024October").
var glue = []*regexp.Regexp{
	regexp.MustCompile(`\p{L}[$€£(]?\d{1,3}(,\d{3})+`),
	regexp.MustCompile(`\p{L}[$€£]\d`),
	regexp.MustCompile(`\p{L}{2}\d+\.\d\d\b`),
	regexp.MustCompile(`\d,\d{3}\d`),
	regexp.MustCompile(`\d[$€£]\d|\d\)\(?[$€£]?\d|%\d|\d\(\d{1,3},\d`),
	regexp.MustCompile(`\b(19|20)\d\d\p{Lu}\p{Ll}`),
}

// link drops link targets and bare URLs, whose digits touch letters.
var link = regexp.MustCompile(`\]\([^)]*\)|https?://\S+|www\.\S+|\S+@\S+`)

func glued(line string) bool {
	line = link.ReplaceAllString(line, "]")
	for _, g := range glue {
		if g.MatchString(line) {
			return true
		}
	}
	return false
}

// visibleText returns the text a reader of the filing sees, blocks
// separated by spaces, and the number of its <table> elements.
func visibleText(src []byte) (string, int) {
	root, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return "", 0
	}
	var b strings.Builder
	tables := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				switch c.Data {
				case "script", "style", "head", "noscript", "template":
					continue
				case "table":
					tables++
				}
				b.WriteByte(' ')
				walk(c)
				b.WriteByte(' ')
			}
		}
	}
	walk(root)
	return b.String(), tables
}
