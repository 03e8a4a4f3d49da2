package content

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// prepare cleans an extracted article (a detached copy): forms, embeds,
// asides, share boxes, headings marked as boilerplate, and tables, lists
// and divs that look like navigation or widgets rather than prose.
func (r *readable) prepare(art *html.Node) {
	// Named boilerplate goes first, on the attempts that read class
	// names: the second attempt only brings back the blocks that the
	// first dropped as unlikely (a page wrapped in "layout-with-sidebar"),
	// not the boilerplate inside them.
	r.art = art
	if r.flags&flagWeightClasses != 0 {
		dropBoilerplate(art)
		if !offRelatedLabels {
			dropRelatedLabels(art)
		}
		if !offLinkOnly {
			dropLinkOnly(art, r.host)
		}
	}
	// The elements cleanConditionally judges, collected in one walk
	// that also tells the tables of data (isDataTable), which only the
	// cleaning reads: the steps between its calls only remove elements,
	// which it passes over (attached).
	dataTables := make(map[*html.Node]bool)
	clean := cleanLists{nodes: r.factNodes[:0], tallies: r.tallies}
	if r.flags&flagCleanConditionally != 0 {
		// The article has at most the nodes its copy made: nodes
		// takes its array once.
		if cap(clean.nodes) < r.made {
			clean.nodes = make([]factNode, 0, r.made)
		}
		clean.collect(art, dataTables, false)
		r.factUsed = max(r.factUsed, len(clean.nodes))
	}
	r.cleanConditionally(art, atom.Form, &clean, dataTables)
	r.cleanConditionally(art, atom.Fieldset, &clean, dataTables)
	r.removeNonContent(art, 1)
	r.cleanConditionally(art, atom.Table, &clean, dataTables)
	r.cleanConditionally(art, atom.Ul, &clean, dataTables)
	r.cleanConditionally(art, atom.Div, &clean, dataTables)
	r.factNodes = clean.nodes[:0]
	removeTags(art, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.H1:
			n.Data = "h2"
			n.DataAtom = atom.H2
		case atom.P:
			return !hasText(n) && !hasMedia(n)
		}
		return false
	})
}

// removeNonContent removes from the subtree of n, at depth below the
// article (its top-level blocks are at 1), in one walk what three walks
// removed in turn: the elements that are no content (nonContent), then
// the share boxes below the top-level blocks (shareBox), then the
// headings named as boilerplate (an <h1> or <h2> of a negative class
// weight). None of the three looks inside what it removes, and each
// judges an element by itself, but a share box by its text, which the
// second walk read without what the first had removed: shareBox reads
// it without the elements nonContent accepts. An element of the
// subtree is then removed, with the walks as with the one, when one of
// the three accepts it or one of its ancestors.
func (r *readable) removeNonContent(n *html.Node, depth int) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type != html.ElementNode {
			continue
		}
		if nonContent(c) || depth > 1 && shareBox(c) ||
			(c.DataAtom == atom.H1 || c.DataAtom == atom.H2) && r.classWeight(c) < 0 {
			if CleanTrace != nil {
				why := "nonContent " + c.Data
				if !nonContent(c) {
					why = "heading weight<0"
					if depth > 1 && shareBox(c) {
						why = "shareBox"
					}
				}
				CleanTrace(r.art, why, c)
			}
			n.RemoveChild(c)
			continue
		}
		r.removeNonContent(c, depth+1)
	}
}

// nonContent tells whether element n is no content: a footer, an
// aside, a form control, a link element, an embed but a video.
func nonContent(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Object, atom.Embed, atom.Iframe:
		return !videoEmbed(n)
	case atom.Footer, atom.Link, atom.Aside, atom.Input, atom.Textarea, atom.Select, atom.Button:
		return true
	}
	return false
}

// shareBox tells whether element n is a share box: named so, with less
// than 500 characters of text besides the elements nonContent accepts.
func shareBox(n *html.Node) bool {
	if !mayNameShare(n) {
		return false
	}
	m := matchString(n)
	return m != "" && shareHint(m) && textWithout(n).length < 500
}

// textWithout is textStats(n, nil) of n's subtree without the elements
// nonContent accepts.
func textWithout(n *html.Node) stats {
	var st stats
	var add func(n *html.Node, link float64)
	add = func(n *html.Node, link float64) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				countText(c.Data, link, &st)
			case html.ElementNode:
				if c.DataAtom == atom.Script || nonContent(c) {
					continue
				}
				add(c, linkWeight(c, link))
			}
		}
	}
	add(n, 0)
	return st
}

// removeTags removes every element of the subtree of n (not n) that
// drop accepts; it does not look inside removed elements.
func removeTags(n *html.Node, drop func(*html.Node) bool) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		if c.Type != html.ElementNode {
			continue
		}
		if drop(c) {
			n.RemoveChild(c)
			continue
		}
		removeTags(c, drop)
	}
}

// mayNameShare tells whether shareHint may hold for n's matchString:
// whether a class or id of n holds "share" in any ASCII case, or a byte
// outside ASCII (whose lower case is left to matchString). Most elements
// have neither, and skip matchString's lower-cased copy.
func mayNameShare(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "class" || a.Key == "id" {
			if mayHoldShare(a.Val) {
				return true
			}
		}
	}
	return false
}

// mayHoldShare tells whether v holds "share" in any ASCII case or a byte
// outside ASCII.
func mayHoldShare(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= utf8.RuneSelf {
			return true
		}
		if c|0x20 == 's' && len(v)-i >= 5 && asciiPrefixFold(v[i:], "share") {
			return true
		}
	}
	return false
}

func shareHint(m string) bool {
	for _, w := range []string{"share", "sharedaddy"} {
		for i := 0; ; {
			j := strings.Index(m[i:], w)
			if j < 0 {
				break
			}
			j += i
			end := j + len(w)
			if wordEdge(m, j-1) && wordEdge(m, end) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

// wordEdge: position i of s is outside s or not a letter or digit
// (an underscore counts as an edge).
func wordEdge(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80)
}

var videoHosts = []string{"youtube.com", "youtube-nocookie.com", "player.vimeo.com", "v.qq.com",
	"archive.org", "upload.wikimedia.org", "player.twitch.tv", "dailymotion.com", "bilibili.com",
	"live.bilibili.com", "youtu.be"}

func videoEmbed(n *html.Node) bool {
	for _, a := range n.Attr {
		v := strings.ToLower(a.Val)
		for _, h := range videoHosts {
			if strings.Contains(v, h) {
				return true
			}
		}
	}
	return false
}

func hasMedia(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.Img, atom.Embed, atom.Object, atom.Iframe, atom.Picture, atom.Video, atom.Audio:
			return true
		}
		if hasMedia(c) {
			return true
		}
	}
	return false
}

func isDataTable(t *html.Node) bool {
	if attr(t, "role") == "presentation" || attr(t, "datatable") == "0" {
		return false
	}
	if attr(t, "summary") != "" {
		return true
	}
	var caption, header, nested bool
	rows, cols := 0, 0
	var visit func(n *html.Node, top bool)
	visit = func(n *html.Node, top bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Caption:
				if top && strings.TrimSpace(nodeText(c)) != "" {
					caption = true
				}
			case atom.Colgroup, atom.Tfoot, atom.Thead, atom.Th:
				header = true
			case atom.Table:
				nested = true
				continue
			case atom.Tr:
				if top {
					rows++
					k := 0
					for d := c.FirstChild; d != nil; d = d.NextSibling {
						if d.Type == html.ElementNode && (d.DataAtom == atom.Td || d.DataAtom == atom.Th) {
							span := 1
							if s := attr(d, "colspan"); s != "" {
								if v := atoiSmall(s); v > 0 {
									span = v
								}
							}
							k += span
						}
					}
					cols = max(cols, k)
				}
			}
			visit(c, top)
		}
	}
	visit(t, true)
	if caption || header {
		return true
	}
	if nested {
		return false
	}
	if rows >= 10 || cols > 4 {
		return true
	}
	return rows*cols > 10
}

func atoiSmall(s string) int {
	v := 0
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' || v > 1000 {
			return v
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// cleanLists are the elements of the tags cleanConditionally judges, in
// document order, as indices of nodes: the article's elements and texts
// in document order, as facts reads them.
type cleanLists struct {
	form, fieldset, table, ul, div []int32
	nodes                          []factNode
	tallies                        *tallies // visit's counts of the texts (nil: none)
}

// factNode is an element or a text of the article as facts reads it: a
// text's counts are countText's, read once instead of once for each
// judged block that holds it (divs nest: a text was counted for each).
type factNode struct {
	node *html.Node
	// end is the index after the node's subtree.
	end int32
	// length and commas are a text's countText counts, alone.
	length, commas int32
	kind           factKind
	// link is an <a>'s anchorKind.
	link uint8
}

// factKind is what facts counts of a node.
type factKind uint16

const (
	factText factKind = 1 << iota
	factScript
	factA
	factP
	factImg
	factLi
	factInput
	factEmbed     // an <object>, <embed> or <iframe>
	factVideo     // an embed of a video host (videoEmbed)
	factDataTable // a data table (dataTables)
	factHeading
	factList
	factTextish // the elements under which text makes a block textish
)

// collect reads the subtree of n (not n) into l: the elements
// cleanConditionally judges and, for facts, the nodes of their
// subtrees (inside tells whether n is in one); facts reads no other.
// It marks the tables of data in dataTables on the way.
func (l *cleanLists) collect(n *html.Node, dataTables map[*html.Node]bool, inside bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if inside {
				length, commas := l.tallies.alone(c.Data)
				at := int32(len(l.nodes))
				l.nodes = append(l.nodes, factNode{node: c, end: at + 1, length: int32(length),
					commas: int32(commas), kind: factText})
			}
			continue
		case html.ElementNode:
		default:
			continue
		}
		if c.DataAtom == atom.Table && isDataTable(c) {
			dataTables[c] = true
		}
		judged := l.of(c.DataAtom)
		if judged == nil && !inside {
			l.collect(c, dataTables, false)
			continue
		}
		at := int32(len(l.nodes))
		if judged != nil {
			*judged = append(*judged, at)
		}
		f := factNode{node: c, kind: elementFacts(c, dataTables)}
		if f.kind&factA != 0 {
			f.link = anchorKind(c)
		}
		l.nodes = append(l.nodes, f)
		l.collect(c, dataTables, true)
		l.nodes[at].end = int32(len(l.nodes))
	}
}

// elementFacts is what facts counts of element c.
func elementFacts(c *html.Node, dataTables map[*html.Node]bool) factKind {
	var k factKind
	switch c.DataAtom {
	case atom.Script:
		return factScript
	case atom.A:
		k = factA
	case atom.P:
		k = factP
	case atom.Img:
		k = factImg
	case atom.Li:
		k = factLi
	case atom.Input:
		k = factInput
	case atom.Object, atom.Embed, atom.Iframe:
		k = factEmbed
		if videoEmbed(c) {
			k |= factVideo
		}
	case atom.Table:
		if dataTables[c] {
			k = factDataTable
		}
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		k = factHeading
	case atom.Ul, atom.Ol:
		k = factList
	}
	switch c.DataAtom {
	case atom.Span, atom.Li, atom.Td, atom.Blockquote, atom.Dl, atom.Div, atom.Img, atom.Ol, atom.P, atom.Pre, atom.Table, atom.Ul:
		k |= factTextish
	}
	return k
}

// of returns the list of tag, or nil.
func (l *cleanLists) of(tag atom.Atom) *[]int32 {
	switch tag {
	case atom.Form:
		return &l.form
	case atom.Fieldset:
		return &l.fieldset
	case atom.Table:
		return &l.table
	case atom.Ul:
		return &l.ul
	case atom.Div:
		return &l.div
	}
	return nil
}

// cleanConditionally removes the elements of one tag (from lists) that
// look like boilerplate. Later elements are judged first, so an outer
// element is judged without the inner ones already removed; elements no
// longer in the article are passed over.
func (r *readable) cleanConditionally(art *html.Node, tag atom.Atom, lists *cleanLists, dataTables map[*html.Node]bool) {
	if r.flags&flagCleanConditionally == 0 {
		return
	}
	at := *lists.of(tag)
	for i := len(at) - 1; i >= 0; i-- {
		n := lists.nodes[at[i]].node
		if n.Parent == nil || !attached(n, art) {
			continue
		}
		if tag == atom.Div && r.spareRuns && inItemRun(n) {
			continue
		}
		if r.boilerplate(n, tag, lists, at[i], dataTables) {
			if CleanTrace != nil {
				CleanTrace(r.art, r.cleanWhy(n, tag, lists, at[i]), n)
			}
			n.Parent.RemoveChild(n)
			r.cleaned = true
		}
	}
}

// maxRunLook is the most element siblings inItemRun reads on each side.
const maxRunLook = 32

// inItemRun tells whether n is one of a run of items: at least minItems
// siblings of its tag and first class word (itemClass), among the
// maxRunLook element siblings on each side. On a listing each item (a
// linked title, a teaser, a date) is judged alone by the conditional
// cleaning, which takes a short, link-dense block for a widget; the
// items are the listing's content.
func inItemRun(n *html.Node) bool {
	key := itemClass(attr(n, "class"))
	same := 1
	for _, prev := range [2]bool{true, false} {
		k := 0
		for c := sibling(n, prev); c != nil && k < maxRunLook; c = sibling(c, prev) {
			if c.Type != html.ElementNode {
				continue
			}
			k++
			if c.DataAtom == n.DataAtom && c.Data == n.Data && itemClass(attr(c, "class")) == key {
				if same++; same >= minItems {
					return true
				}
			}
		}
	}
	return false
}

func attached(n, root *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p == root {
			return true
		}
	}
	return false
}

// blockFacts are the counts boilerplate judges an element by.
type blockFacts struct {
	stats
	p, img, li, input, embeds int
	headingLen, listLen       int
	textish                   bool // a span, li, td or block inside holds text
	dataTable, video          bool
}

// facts returns the blockFacts of the element at index at of nodes,
// read as a walk of its subtree would: in document order, passing over
// scripts and over the subtrees removed since nodes were read. Between
// collect and the last facts the article's elements are only removed
// (RemoveChild leaves a removed node without a parent): nothing is
// added, moved or changed, so nodes read in document order, without
// the removed ones, are the subtree's nodes as a walk finds them.
func facts(nodes []factNode, at int32) blockFacts {
	var f blockFacts
	e := &nodes[at]
	link := 0.0
	if e.kind&factA != 0 {
		link = linkWeights[e.link]
	}
	factsIn(nodes, at+1, e.end, link, false, false, false, &f)
	return f
}

// factsIn adds to f the facts of nodes[i:end], the children of one
// element and their subtrees; link, heading, list and textish are what
// the element's ancestors up to the judged one make of its text.
func factsIn(nodes []factNode, i, end int32, link float64, heading, list, textish bool, f *blockFacts) {
	for i < end {
		e := &nodes[i]
		at := i
		i = e.end
		if e.node.Parent == nil {
			continue // removed
		}
		k := e.kind
		if k&factText != 0 {
			// countText's arithmetic on its counts of the text alone:
			// the separation from the text before, then the sums.
			d := int(e.length)
			if d > 0 && f.length > 0 {
				d++
			}
			f.length += d
			f.linkLen += link * float64(d)
			f.commas += int(e.commas)
			if heading {
				f.headingLen += d
			}
			if list {
				f.listLen += d
			}
			if textish && d > 0 {
				f.textish = true
			}
			continue
		}
		if k&factScript != 0 {
			continue
		}
		switch {
		case k&factP != 0:
			f.p++
		case k&factImg != 0:
			f.img++
		case k&factLi != 0:
			f.li++
		case k&factInput != 0:
			f.input++
		case k&factEmbed != 0:
			if k&factVideo != 0 {
				f.video = true
			}
			f.embeds++
		case k&factDataTable != 0:
			f.dataTable = true
		}
		l := link
		if k&factA != 0 && link == 0 {
			l = linkWeights[e.link]
		}
		factsIn(nodes, at+1, e.end, l, heading || k&factHeading != 0, list || k&factList != 0,
			textish || k&factTextish != 0, f)
	}
}

// boilerplate tells whether n, of tag and at index at of lists.nodes,
// is boilerplate.
func (r *readable) boilerplate(n *html.Node, tag atom.Atom, lists *cleanLists, at int32, dataTables map[*html.Node]bool) bool {
	if tag == atom.Table && dataTables[n] {
		return false
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Table && dataTables[p] {
			return false
		}
	}
	if hasAncestor(n, atom.Code, 3) {
		return false
	}
	f := facts(lists.nodes, at)
	if f.dataTable {
		return false
	}
	isList := tag == atom.Ul || tag == atom.Ol
	if !isList && f.length > 0 && float64(f.listLen)/float64(f.length) > 0.9 {
		isList = true
	}
	weight := r.classWeight(n)
	// A block named like a footer or header that holds most of the
	// article is the article ("above-footer" around the whole page).
	if weight < 0 && !(pageRegion(matchString(n)) && 2*f.length > textStats(r.art, nil).length) {
		return true
	}
	if f.commas >= 10 {
		return false
	}
	if f.video {
		return false
	}
	if f.length <= 20 && adOrLoading(collapse(nodeText(n))) {
		return true
	}
	linkDensity := 0.0
	if f.length > 0 {
		linkDensity = f.linkLen / float64(f.length)
	}
	headingDensity := 0.0
	if f.length > 0 {
		headingDensity = float64(f.headingLen) / float64(f.length)
	}
	figure := hasAncestor(n, atom.Figure, 3)
	li := f.li - 100
	remove := (!figure && f.img > 1 && float64(f.p)/float64(f.img) < 0.5) ||
		(!isList && li > f.p) ||
		(f.input > f.p/3) ||
		(!isList && !figure && headingDensity < 0.9 && f.length < 25 && (f.img == 0 || f.img > 2) && linkDensity > 0) ||
		(!isList && weight < 25 && linkDensity > 0.2) ||
		(weight >= 25 && linkDensity > 0.5) ||
		(f.embeds == 1 && f.length < 75) || f.embeds > 1 ||
		(f.img == 0 && !f.textish)
	if isList && remove {
		// Keep lists whose items are images only.
		items := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if elementChildren(c) > 1 {
				return remove
			}
			items++
		}
		if items > 0 && f.img == f.li {
			return false
		}
	}
	return remove
}

func adOrLoading(t string) bool {
	t = strings.ToLower(t)
	switch t {
	case "ad", "advertising", "advertisement", "pub", "publicité", "werb", "werbung", "广告", "реклама", "anuncio":
		return true
	}
	for _, w := range loadingWords {
		// t is w, "w…" or "w...", without a concatenation per test.
		if rest, ok := strings.CutPrefix(t, w); ok && (rest == "" || rest == "…" || rest == "...") {
			return true
		}
	}
	return false
}

// loadingWords are what a placeholder shows while it loads.
var loadingWords = []string{"loading", "正在加载", "загрузка", "chargement", "cargando"}

// hasText tells whether the subtree of n holds text other than white space.
func hasText(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return true
			}
		case html.ElementNode:
			if c.DataAtom != atom.Script && hasText(c) {
				return true
			}
		}
	}
	return false
}
