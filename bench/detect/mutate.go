package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/monitor/detect"
)

// Mutation classes and what a monitor should do on them.
const (
	classNoise       = "noise"       // no alert
	classMaterial    = "material"    // a material change
	classRestructure = "restructure" // relocated
	classRemoval     = "removal"     // relocation fails
)

// mutation changes a parsed base page; region is the root of the
// monitor's region, w what the monitor watches (lists and figures are
// chosen among what it watches, not in a related-posts widget it leaves
// out). apply returns why it does not apply, or "".
type mutation struct {
	class, name string
	onlyMain    bool // measured on the monitor without keywords only
	apply       func(doc, region *html.Node, w *watch) string
}

// newPDF is the document link of the inserted item.
const newPDF = "/files/bench-new-release.pdf"

func mutations(keyword string, unrelated []string) []mutation {
	noise := []func(doc, region *html.Node, w *watch) string{shiftDates, bumpCounters, newTokens, rotateAsides}
	return []mutation{
		{classNoise, "dates and times", false, shiftDates},
		{classNoise, "counters", false, bumpCounters},
		{classNoise, "tokens and tracking", false, newTokens},
		{classNoise, "rotating aside", false, rotateAsides},
		{classNoise, "items reordered", false, reorder},
		{classNoise, "all noise", false, func(doc, region *html.Node, w *watch) string {
			for _, f := range noise {
				f(doc, region, w)
			}
			return ""
		}},
		{classMaterial, "new item with keyword", false, func(doc, region *html.Node, w *watch) string { return insertItem(region, w, keyword) }},
		{classMaterial, "figure changed", true, changeFigure},
		{classRestructure, "wrapper added", false, wrap},
		{classRestructure, "classes renamed", false, renameClasses},
		{classRestructure, "region moved", false, move},
		{classRestructure, "all three", false, func(doc, region *html.Node, w *watch) string {
			renameClasses(doc, region, w)
			if why := move(doc, region, w); why != "" {
				return why
			}
			return wrap(doc, region, w)
		}},
		{classRemoval, "region removed", false, remove},
		{classRemoval, "region replaced", false, func(doc, region *html.Node, w *watch) string { return replace(region, unrelated) }},
	}
}

// dateFormats are the formats shiftDates changes, each with a pattern
// and a layout; a match that does not parse is left alone.
var dateFormats = []struct {
	re      *regexp.Regexp
	layouts []string
}{
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`), []string{time.RFC3339}},
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`), []string{"2006-01-02"}},
	{regexp.MustCompile(`\b\d{2}/\d{2}/\d{4}\b`), []string{"02/01/2006", "01/02/2006"}},
	{regexp.MustCompile(`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2}, \d{4}\b`), []string{"Jan 2, 2006", "January 2, 2006"}},
	{regexp.MustCompile(`\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}\b`), []string{"2 January 2006"}},
	{regexp.MustCompile(`\b\d{1,2}:\d{2} [AP]M\b`), []string{"3:04 PM"}},
}

var (
	relativeRe = regexp.MustCompile(`\b(\d+) (hours|minutes|days) ago\b`)
	counterRe  = regexp.MustCompile(`\b(\d{1,3}(?:,\d{3})+|\d+) (views|comments|likes|replies|followers)\b`)
	hexRe      = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	numberRe   = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)
)

// shiftDates moves every date and time of the page's text by 37 days,
// 3 hours and 17 minutes, keeping its format, and every "n hours ago"
// by 3.
func shiftDates(doc, _ *html.Node, _ *watch) string {
	eachText(doc, func(t *html.Node) {
		s := t.Data
		for _, f := range dateFormats {
			s = f.re.ReplaceAllStringFunc(s, func(m string) string {
				for _, l := range f.layouts {
					if tm, err := time.Parse(l, m); err == nil {
						return tm.Add(37*24*time.Hour + 197*time.Minute).Format(l)
					}
				}
				return m
			})
		}
		s = relativeRe.ReplaceAllStringFunc(s, func(m string) string {
			sub := relativeRe.FindStringSubmatch(m)
			n, _ := strconv.Atoi(sub[1])
			return fmt.Sprintf("%d %s ago", n+3, sub[2])
		})
		t.Data = s
	})
	return ""
}

// bumpCounters adds 7 to every counter of views, comments, likes,
// replies and followers.
func bumpCounters(doc, _ *html.Node, _ *watch) string {
	eachText(doc, func(t *html.Node) {
		t.Data = counterRe.ReplaceAllStringFunc(t.Data, func(m string) string {
			sub := counterRe.FindStringSubmatch(m)
			n, _ := strconv.Atoi(strings.ReplaceAll(sub[1], ",", ""))
			n += 7
			s := strconv.Itoa(n)
			if strings.Contains(sub[1], ",") {
				s = commas(n)
			}
			return s + " " + sub[2]
		})
	})
	return ""
}

func commas(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// newTokens replaces every 32-digit hex token of the text and of links,
// and gives every link a new utm_campaign and every image a cache buster.
func newTokens(doc, _ *html.Node, _ *watch) string {
	eachText(doc, func(t *html.Node) { t.Data = hexRe.ReplaceAllStringFunc(t.Data, otherHex) })
	eachElement(doc, func(n *html.Node) {
		for i := range n.Attr {
			a := &n.Attr[i]
			switch {
			case n.DataAtom == atom.A && a.Key == "href" && a.Val != "" && !strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "javascript:"):
				a.Val = addParam(newQueryTokens(a.Val), "utm_campaign", otherHex(a.Val)[:8])
			case n.DataAtom == atom.Img && a.Key == "src" && a.Val != "" && !strings.HasPrefix(a.Val, "data:"):
				a.Val = addParam(a.Val, "_", "1763894520123")
			}
		}
	})
	return ""
}

func otherHex(s string) string {
	h := fnv.New128a()
	h.Write([]byte(s))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// newQueryTokens replaces the query values of u that are 32-digit hex
// tokens (session ids); hex in the path names a resource and stays.
func newQueryTokens(u string) string {
	q := strings.IndexByte(u, '?')
	if q < 0 {
		return u
	}
	parts := strings.Split(u[q+1:], "&")
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok && hexRe.MatchString(v) && len(v) == 32 {
			parts[i] = k + "=" + otherHex(v)
		}
	}
	return u[:q+1] + strings.Join(parts, "&")
}

// addParam adds key=val to the query of u, before its fragment.
func addParam(u, key, val string) string {
	u = strings.TrimSpace(strings.Trim(u, "\u00a0"))
	frag := ""
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u, frag = u[:i], u[i:]
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + key + "=" + val + frag
}

// rotateAsides replaces the text of every <aside> with other headlines,
// but for an aside holding the region or watched by it: that is content.
func rotateAsides(doc, region *html.Node, w *watch) string {
	eachElement(doc, func(n *html.Node) {
		if n.DataAtom != atom.Aside || contains(n, region) || mostlyWatched(n, w) {
			return
		}
		i := 0
		eachText(n, func(t *html.Node) {
			if strings.TrimSpace(t.Data) != "" {
				i++
				t.Data = fmt.Sprintf("Popular today: story number %d about the weather", i)
			}
		})
	})
	return ""
}

// reorder reverses the items (li, tr) of the largest list or table in
// the region. Other children stay where they are: a "back" link or a
// logo that a menu's markup puts inside its <ul>, before or after the
// items, is no item, and a site that reorders its items keeps them.
func reorder(_, region *html.Node, w *watch) string {
	list := largestList(region, w)
	if list == nil {
		return "no list in the region"
	}
	var children, items []*html.Node
	for c := list.FirstChild; c != nil; c = c.NextSibling {
		children = append(children, c)
		if isItem(c) {
			items = append(items, c)
		}
	}
	for _, c := range children {
		list.RemoveChild(c)
	}
	next := len(items) - 1
	for _, c := range children {
		if isItem(c) {
			c = items[next]
			next--
		}
		list.AppendChild(c)
	}
	return ""
}

func isItem(n *html.Node) bool {
	return n.Type == html.ElementNode && (n.DataAtom == atom.Li || n.DataAtom == atom.Tr)
}

// largestList returns the ul, ol or tbody of region (itself included)
// with the most item children, at least three, most of them watched.
func largestList(region *html.Node, w *watch) *html.Node {
	var best *html.Node
	bestN := 2
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.DataAtom {
		case atom.Ul, atom.Ol, atom.Tbody:
			items, seen := 0, 0
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.DataAtom == atom.Li || c.DataAtom == atom.Tr) {
					items++
					if isWatched(c, w) {
						seen++
					}
				}
			}
			if items > bestN && 2*seen >= items {
				best, bestN = n, items
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(region)
	return best
}

// insertItem puts a new item carrying the keyword and a PDF link at the
// top of the region's largest list, or a new paragraph at the top of
// the region.
func insertItem(region *html.Node, w *watch, keyword string) string {
	if keyword == "" {
		keyword = "update"
	}
	item := fmt.Sprintf(`<a href="%s">%s: the company announces a new credit facility of $250 million (PDF)</a>`, newPDF, keyword)
	parent, wrapItem := region, func(s string) string { return "<p>" + s + "</p>" }
	if list := largestList(region, w); list != nil {
		parent, wrapItem = itemContainer(list)
	} else if region.DataAtom != atom.Body && region.DataAtom != atom.Div && region.DataAtom != atom.Section &&
		region.DataAtom != atom.Article && region.DataAtom != atom.Main {
		parent, wrapItem = itemContainer(region)
	}
	nodes := parseFragment(parent, wrapItem(item))
	if os.Getenv("BENCH_DEBUG") != "" {
		var segs []string
		for n := parent; n != nil && n.Type == html.ElementNode; n = n.Parent {
			cls := ""
			for _, a := range n.Attr {
				if a.Key == "class" || a.Key == "id" || a.Key == "style" || a.Key == "hidden" || a.Key == "aria-hidden" {
					cls += "[" + a.Key + "=" + a.Val + "]"
				}
			}
			segs = append(segs, n.Data+cls)
		}
		fmt.Printf("DEBUG insert into %s\n", strings.Join(segs, " < "))
	}
	first := firstElement(parent)
	for _, n := range nodes {
		parent.InsertBefore(n, first)
	}
	return ""
}

func firstElement(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// changeFigure changes one digit of a figure in the region: the first
// number in a table cell, else the first in a paragraph or list item,
// that is not part of a date, a time or a counter, in watched text.
func changeFigure(_, region *html.Node, w *watch) string {
	var cells, others []*html.Node
	var walk func(n *html.Node, inCell, inText bool)
	walk = func(n *html.Node, inCell, inText bool) {
		switch n.Type {
		case html.TextNode:
			if figureSpan(n.Data) != nil && isWatched(blockOf(n), w) {
				if inCell {
					cells = append(cells, n)
				} else if inText {
					others = append(others, n)
				}
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript:
				return
			case atom.Td, atom.Th:
				inCell = true
			case atom.P, atom.Li:
				inText = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inCell, inText)
		}
	}
	walk(region, false, false)
	for _, t := range append(cells, others...) {
		for _, span := range figureSpans(t.Data) {
			num := t.Data[span[0]:span[1]]
			// Change the last digit.
			i := strings.LastIndexAny(num, "0123456789")
			d := num[i] - '0'
			num = num[:i] + string(rune('0'+(d+3)%10)) + num[i+1:]
			changed := t.Data[:span[0]] + num + t.Data[span[1]:]
			// A number the normalisation rules count as part of a date,
			// a time or a counter is not a figure; the rules read the
			// whole block ("24 November, 1994" spans elements).
			block := blockOf(t)
			before := itemText(block)
			orig := t.Data
			t.Data = changed
			after := itemText(block)
			t.Data = orig
			if detect.Normalize(after) == detect.Normalize(before) {
				continue
			}
			if os.Getenv("BENCH_DEBUG") != "" {
				var segs []string
				for n := t.Parent; n != nil && n.Type == html.ElementNode; n = n.Parent {
					cls := ""
					for _, a := range n.Attr {
						if a.Key == "class" || a.Key == "style" || a.Key == "hidden" || a.Key == "aria-hidden" || a.Key == "role" {
							cls += "[" + a.Key + "=" + a.Val + "]"
						}
					}
					segs = append(segs, n.Data+cls)
					if len(segs) == 6 {
						break
					}
				}
				fmt.Printf("DEBUG figure %q -> %q in %s; block %q\n", t.Data, changed, strings.Join(segs, " < "), itemText(blockOf(t)))
			}
			t.Data = changed
			return ""
		}
	}
	return "no figure in the region"
}

// figureSpans returns the positions of the numbers of s that are not
// inside a date, a time, a counter or a token of the bench's own
// formats.
func figureSpans(s string) [][]int {
	var masked [][]int
	for _, f := range dateFormats {
		masked = append(masked, f.re.FindAllStringIndex(s, -1)...)
	}
	masked = append(masked, relativeRe.FindAllStringIndex(s, -1)...)
	masked = append(masked, counterRe.FindAllStringIndex(s, -1)...)
	masked = append(masked, hexRe.FindAllStringIndex(s, -1)...)
	var out [][]int
	for _, m := range numberRe.FindAllStringIndex(s, -1) {
		inside := false
		for _, x := range masked {
			if m[0] < x[1] && x[0] < m[1] {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, m)
		}
	}
	return out
}

func figureSpan(s string) []int {
	if f := figureSpans(s); len(f) > 0 {
		return f[0]
	}
	return nil
}

// wrap puts the region inside two new divs (its children when it is the
// body).
func wrap(_, region *html.Node, _ *watch) string {
	outer := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "class", Val: "bench-wrap"}}}
	inner := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "class", Val: "bench-inner"}}}
	outer.AppendChild(inner)
	if region.DataAtom == atom.Body {
		for c := region.FirstChild; c != nil; c = region.FirstChild {
			region.RemoveChild(c)
			inner.AppendChild(c)
		}
		region.AppendChild(outer)
		return ""
	}
	region.Parent.InsertBefore(outer, region)
	region.Parent.RemoveChild(region)
	inner.AppendChild(region)
	return ""
}

// renameClasses gives every class of the page a new name.
func renameClasses(doc, _ *html.Node, _ *watch) string {
	eachElement(doc, func(n *html.Node) {
		for i := range n.Attr {
			if n.Attr[i].Key != "class" {
				continue
			}
			var out []string
			for c := range strings.FieldsSeq(n.Attr[i].Val) {
				out = append(out, "k"+otherHex(c)[:6])
			}
			n.Attr[i].Val = strings.Join(out, " ")
		}
	})
	return ""
}

// move puts the region first in the body, or last when it is first.
func move(doc, region *html.Node, _ *watch) string {
	body := findTag(doc, atom.Body)
	if region.DataAtom == atom.Body || body == nil {
		return "the region is the body"
	}
	wasFirst := region.Parent == body && firstElement(body) == region
	region.Parent.RemoveChild(region)
	if first := firstElement(body); first != nil && !wasFirst {
		body.InsertBefore(region, first)
	} else {
		body.AppendChild(region)
	}
	return ""
}

// remove takes the region out of the page (empties the body when it is
// the region).
func remove(_, region *html.Node, _ *watch) string {
	if region.DataAtom == atom.Body {
		for c := region.FirstChild; c != nil; c = region.FirstChild {
			region.RemoveChild(c)
		}
		return ""
	}
	region.Parent.RemoveChild(region)
	return ""
}

// replace swaps the region's content for unrelated paragraphs from
// another page, in an element of the same tag and class at the same
// place: the hardest case, where only the text tells.
func replace(region *html.Node, unrelated []string) string {
	for c := region.FirstChild; c != nil; c = region.FirstChild {
		region.RemoveChild(c)
	}
	parent, wrapItem := itemContainer(region)
	for _, p := range unrelated {
		appendAll(parent, parseFragment(parent, wrapItem(html.EscapeString(p))))
	}
	return ""
}

func eachText(n *html.Node, f func(*html.Node)) {
	if n.Type == html.TextNode {
		f(n)
		return
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		eachText(c, f)
	}
}

func eachElement(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		eachElement(c, f)
	}
}

// watch is what the monitor watches: the text of its fingerprint's
// blocks, one a line, and the text of the whole page.
type watch struct{ lines, page string }

// isWatched tells whether the monitor watches element n: some block of
// its fingerprint starts with n's text (is n's text, when short), a
// table row's cells joined by " | " as blocks read, and that text is
// once only on the page (a table of contents or a menu repeating the
// headings is not what is watched).
func isWatched(n *html.Node, w *watch) bool {
	probe := itemText(n)
	if len(probe) > 40 {
		probe = probe[:40]
		for len(probe) > 0 && !utf8.RuneStart(probe[len(probe)-1]) {
			probe = probe[:len(probe)-1]
		}
		probe = strings.TrimSpace(probe[:len(probe)-1])
	} else {
		probe += "\n" // a short text must be a whole block
	}
	return len(probe) >= 3 && strings.Contains("\n"+w.lines+"\n", "\n"+probe) &&
		strings.Count(w.page, strings.TrimSuffix(probe, "\n")) == 1
}

// itemText is the text of n with white space collapsed; a row's cells
// are joined by " | ".
func itemText(n *html.Node) string {
	if n.DataAtom == atom.Tr {
		var cells []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
				if t := itemText(c); t != "" {
					cells = append(cells, t)
				}
			}
		}
		return strings.Join(cells, " | ")
	}
	var b strings.Builder
	eachText(n, func(t *html.Node) { b.WriteString(t.Data) })
	return collapse(b.String())
}

// blockOf returns the element whose block holds text node t.
func blockOf(t *html.Node) *html.Node {
	for n := t.Parent; n != nil; n = n.Parent {
		switch n.DataAtom {
		case atom.P, atom.Li, atom.Tr, atom.Dd, atom.Dt, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
			atom.Blockquote, atom.Pre, atom.Figcaption, atom.Caption, atom.Div, atom.Section, atom.Article, atom.Body:
			return n
		}
	}
	return t.Parent
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// mostlyWatched tells whether most of n's text is in blocks the monitor
// watches.
func mostlyWatched(n *html.Node, w *watch) bool {
	total, seen := 0, 0
	eachText(n, func(t *html.Node) {
		c := collapse(t.Data)
		total += len(c)
		if len(c) >= 3 && strings.Contains(w.lines, c) {
			seen += len(c)
		}
	})
	return total > 0 && 2*seen > total
}
