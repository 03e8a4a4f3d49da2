package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/monitor/detect"
)

// classKeyword holds the changes to the blocks that carry the keyword
// (issue 19): each must alert, the keyword gone as an error, the others
// as a material change.
const classKeyword = "keyword"

// Mutations of classKeyword. They choose their blocks in the page's main
// content (the region of the monitor without keywords), not in what the
// keyword monitor watches, so that two versions of the detector are
// measured on the same changes.
const (
	mutOnlyRemoved  = "only keyword para removed"
	mutOneRemoved   = "one of several removed"
	mutNewElsewhere = "new keyword block, several"
	mutReanchor     = "re-anchor, restore, new"
)

// keywordBlocks returns the leaf block elements of root whose text
// mentions keyword and that the monitor without keywords watches (w), in
// document order.
func keywordBlocks(root *html.Node, keyword string, w *watch) []*html.Node {
	var out []*html.Node
	kw := strings.ToLower(keyword)
	eachElement(root, func(n *html.Node) {
		switch n.DataAtom {
		case atom.P, atom.Li, atom.Dd, atom.H2, atom.H3, atom.H4, atom.Blockquote:
		default:
			return
		}
		if !strings.Contains(strings.ToLower(itemText(n)), kw) || !isWatched(n, w) || inChrome(n) {
			return
		}
		for _, o := range out {
			if contains(o, n) {
				return
			}
		}
		out = append(out, n)
	})
	return out
}

// keywordMutations are the mutations of classKeyword on a page whose
// main content is marked with markMain.
func keywordMutations(keyword string, main *detect.Fingerprint) []mutation {
	content := func(doc *html.Node) []*html.Node {
		root := findMarked(doc, markMain)
		if root == nil {
			return nil
		}
		return keywordBlocks(root, keyword, mainWatch(doc, main))
	}
	return []mutation{
		{classKeyword, mutOnlyRemoved, false, func(doc, _ *html.Node, _ *watch) string {
			bs := content(doc)
			if len(bs) == 0 {
				return "no keyword block in the main content"
			}
			bs[0].Parent.RemoveChild(bs[0])
			scrub(doc, keyword)
			return ""
		}},
		{classKeyword, mutOneRemoved, false, func(doc, _ *html.Node, _ *watch) string {
			bs := content(doc)
			if len(bs) < 2 {
				return "fewer than two keyword blocks in the main content"
			}
			bs[0].Parent.RemoveChild(bs[0])
			return ""
		}},
		{classKeyword, mutNewElsewhere, false, func(doc, _ *html.Node, _ *watch) string {
			bs := content(doc)
			count := make(map[*html.Node]int)
			for _, b := range bs {
				count[b.Parent]++
			}
			if len(count) < 2 {
				return "the keyword is in one region of the main content"
			}
			// Beside a keyword block of the parent holding the fewest: not
			// where most matches are.
			var at *html.Node
			for _, b := range bs {
				if at == nil || count[b.Parent] < count[at.Parent] {
					at = b
				}
			}
			tag := at.Data
			if at.DataAtom != atom.Li && at.DataAtom != atom.Dd {
				tag = "p"
			}
			nodes := parseFragment(at.Parent, fmt.Sprintf("<%s>%s: the board approved a new programme of share buybacks for next year.</%s>",
				tag, capitalize(keyword), tag))
			for _, n := range nodes {
				at.Parent.InsertBefore(n, at.NextSibling)
			}
			return ""
		}},
	}
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// scrub deletes keyword from every text of the page, in any case, with
// the words it is part of. A keyword split by inline markup
// ("<a>halloween</a>i") is in no one text node: the innermost element
// whose text holds it becomes plain text, scrubbed.
func scrub(doc *html.Node, keyword string) {
	re := regexp.MustCompile(`(?i)\w*` + regexp.QuoteMeta(keyword) + `\w*`)
	eachText(doc, func(t *html.Node) { t.Data = re.ReplaceAllString(t.Data, "thing") })
	raw := func(n *html.Node) string {
		var b strings.Builder
		eachText(n, func(t *html.Node) { b.WriteString(t.Data) })
		return b.String()
	}
	var split []*html.Node
	eachElement(doc, func(n *html.Node) {
		if n.DataAtom == atom.Script || n.DataAtom == atom.Style || !re.MatchString(raw(n)) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && re.MatchString(raw(c)) {
				return
			}
		}
		split = append(split, n)
	})
	for _, n := range split {
		text := re.ReplaceAllString(raw(n), "thing")
		for c := n.FirstChild; c != nil; c = n.FirstChild {
			n.RemoveChild(c)
		}
		n.AppendChild(&html.Node{Type: html.TextNode, Data: text})
	}
}

// reanchorSequence is the case on a page: the largest list of
// the main content (outside menus, headers, footers and asides) becomes
// one card; the monitor is re-anchored on that
// page (as after relocation_failed); the list is restored; a new item
// with the keyword goes first in it. The last check must be material.
func reanchorSequence(pg page, base []byte, m monitor, main *detect.Fingerprint, keyword string) outcome {
	o := outcome{class: classKeyword, mutation: mutReanchor, keywords: true}
	doc := mustParse(base)
	root := findMarked(doc, markMain)
	w := mainWatch(doc, main)
	var list *html.Node
	index, at := -1, 0
	if root != nil {
		eachElement(root, func(n *html.Node) {
			if n.DataAtom != atom.Ul && n.DataAtom != atom.Ol {
				return
			}
			if items := countItems(n); items >= 3 && 2*watchedItems(n, w) >= items && !inChrome(n) && (list == nil || items > countItems(list)) {
				list, index = n, at
			}
			at++
		})
	}
	if list == nil {
		o.skipped = "no list of three items in the main content"
		return o
	}
	first := firstElement(list)
	card := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div, Attr: []html.Attribute{{Key: "class", Val: "card"}}}
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	for c := first.FirstChild; c != nil; c = first.FirstChild {
		first.RemoveChild(c)
		p.AppendChild(c)
	}
	card.AppendChild(p)
	list.Parent.InsertBefore(card, list)
	list.Parent.RemoveChild(list)
	cardPage := render(doc)

	// Anchored afresh on the one-card layout.
	r, err := detect.Anchor(mustParse(cardPage), pg.url, m.keywords)
	if err != nil {
		o.skipped = "the one-card page holds no keyword"
		return o
	}
	fp := r.Fingerprint
	// The list restored: a check, anchoring afresh when it fails.
	r, err = detect.Relocate(mustParse(base), pg.url, fp)
	if err != nil {
		o.skipped = err.Error()
		return o
	}
	if lost(r) {
		if r, err = detect.Anchor(mustParse(base), pg.url, m.keywords); err != nil {
			o.skipped = err.Error()
			return o
		}
	}
	fp = r.Fingerprint
	// A new item with the keyword, first in the list.
	doc = mustParse(base)
	root = findMarked(doc, markMain)
	var target *html.Node
	at = 0
	eachElement(root, func(n *html.Node) {
		if n.DataAtom == atom.Ul || n.DataAtom == atom.Ol {
			if at == index {
				target = n
			}
			at++
		}
	})
	if target == nil {
		o.skipped = "list not found again"
		return o
	}
	nodes := parseFragment(target, fmt.Sprintf(`<li><a href="%s">%s: the company announces a new credit facility of $250 million (PDF)</a></li>`,
		newPDF, capitalize(keyword)))
	for _, n := range nodes {
		target.InsertBefore(n, firstElement(target))
	}
	cur := mustParse(render(doc))
	r, err = detect.Relocate(cur, pg.url, fp)
	if errors.Is(err, detect.ErrKeywordsNotFound) {
		o.gone = true
		return o
	}
	if err != nil {
		o.skipped = err.Error()
		return o
	}
	ch := detect.Compare(fp, r.Fingerprint, m.keywords)
	if os.Getenv("BENCH_DEBUG") != "" {
		in := false
		for _, b := range r.Fingerprint.Blocks {
			in = in || strings.Contains(b.Text, "credit facility")
		}
		var path []string
		for n := target; n != nil && n.Type == html.ElementNode; n = n.Parent {
			path = append(path, n.Data+"."+attrOf(n, "class"))
		}
		fmt.Printf("DEBUG re-anchor: new item in fingerprint %v, list at %s\n", in, strings.Join(path, " < "))
	}
	o.score, o.lost, o.changed, o.material, o.signals = r.Score, lost(r), ch.Changed, ch.Material, ch.Signals
	return o
}

// mainWatch is what the monitor without keywords watches on doc.
func mainWatch(doc *html.Node, main *detect.Fingerprint) *watch {
	var lines []string
	for _, b := range main.Blocks {
		lines = append(lines, b.Text)
	}
	var page strings.Builder
	eachText(doc, func(t *html.Node) { page.WriteString(t.Data) })
	return &watch{lines: strings.Join(lines, "\n"), page: collapse(page.String())}
}

func watchedItems(n *html.Node, w *watch) int {
	seen := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Li && isWatched(c, w) {
			seen++
		}
	}
	return seen
}

func countItems(n *html.Node) int {
	items := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Li {
			items++
		}
	}
	return items
}

// lost tells whether a relocated region counts as not found: by the
// detector's own rule where it has one (Region.Lost), else by the
// threshold.
func lost(r *detect.Region) bool {
	if l, ok := any(r).(interface{ Lost() bool }); ok {
		return l.Lost()
	}
	return r.Score < detect.RelocateThreshold
}

// chromeWord finds the class and id words of menus, headers, footers and
// sidebars.
var chromeWord = regexp.MustCompile(`(?i)(^|[^a-z])(nav|navbar|menu|header|footer|sidebar|breadcrumbs?|masthead)([^a-z]|$)`)

// inChrome tells whether n lies in the page's chrome: navigation, a
// header, a footer or an aside, by tag, role or class and id words. A
// keyword block there is not one of the content's.
func inChrome(n *html.Node) bool {
	for a := n; a != nil && a.Type == html.ElementNode; a = a.Parent {
		switch a.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside:
			return true
		}
		switch attrOf(a, "role") {
		case "navigation", "banner", "contentinfo", "complementary":
			return true
		}
		if chromeWord.MatchString(attrOf(a, "class")) || chromeWord.MatchString(attrOf(a, "id")) {
			return true
		}
	}
	return false
}
