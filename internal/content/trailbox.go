package content

import (
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The trailing box. Many sites close an article with a box of their own
// after its last paragraph: a pointer to another story, a newsletter or
// app offer, a subscription call. The article's paragraphs are plain
// <p> elements; the box is an element the site styles by class, of a few
// dozen words, that links elsewhere. It is the last block of the
// content, or the one before a short last line (an author line).

const (
	boxWords     = 60  // the most words of a trailing box
	boxRestWords = 100 // the fewest words the rest of the content holds
	boxPlainP    = 2   // the fewest plain paragraphs among the box's preceding siblings
	boxSkipWords = 8   // a last line this short may follow the box
	boxSiblings  = 24  // preceding siblings read
)

var boxDebug = os.Getenv("E5_DEBUG") != ""

var boxOn = os.Getenv("E5_BOX") != ""

// dropTrailingBox removes from n a trailing box (see above): the last
// block, or the block before a last block of at most boxSkipWords words.
func dropTrailingBox(n *html.Node) bool {
	t := lastTextBefore(n, nil)
	if boxDebug && t != nil {
		fmt.Fprintf(os.Stderr, "E5LAST %q\n", collapse(t.Data))
	}
	for try := 0; try < 2 && t != nil; try++ {
		b := trailBlock(n, t)
		if b == nil {
			return false
		}
		if box := trailingBox(n, t, b); box != nil {
			if boxDebug {
				fmt.Fprintf(os.Stderr, "E5BOX %q\n", collapse(nodeText(box)))
			}
			box.Parent.RemoveChild(box)
			return true
		}
		if countWords(nodeText(b)) > boxSkipWords {
			return false
		}
		t = lastTextBefore(n, b)
	}
	return false
}

// trailBlock returns the nearest block above t below n; nil when t sits
// in a list item, a table, a figure, a quote or code.
func trailBlock(n, t *html.Node) (b *html.Node) {
	for p := t.Parent; p != nil && p != n; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.Li, atom.Dd, atom.Dt, atom.Pre, atom.Code, atom.Table, atom.Tr, atom.Td, atom.Th,
			atom.Figure, atom.Figcaption, atom.Blockquote:
			return nil
		}
		if b == nil && isBlock(p.DataAtom) {
			b = p
		}
	}
	return b
}

// trailingBox returns the box that holds t, or nil: the outermost
// element above t, below n, of at most boxWords words, that has a class,
// holds a link and, once climbed to its block, is that whole block,
// with at least boxPlainP plain paragraphs before it among its siblings.
func trailingBox(n, t, b *html.Node) *html.Node {
	var box *html.Node
	for p := t.Parent; p != nil && p != n; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		if countWords(nodeText(p)) > boxWords {
			break
		}
		if attr(p, "class") != "" {
			box = p
		}
	}
	if box == nil || !holdsLink(box) {
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5NOBOX %q %v\n", collapse(nodeText(t)), box != nil)
		}
		return nil
	}
	// An inline box (a span) must fill its block.
	blk := box
	if boxDebug {
		fmt.Fprintf(os.Stderr, "E5CAND %s.%s b=%s words=%d/%d\n", box.Data, attr(box, "class"), b.Data, countWords(nodeText(box)), countWords(nodeText(n)))
	}
	if !isBlock(box.DataAtom) {
		if !holds(b, box) || collapse(nodeText(b)) != collapse(nodeText(box)) {
			return nil
		}
		blk = b
	}
	if countWords(nodeText(n))-countWords(nodeText(blk)) < boxRestWords {
		return nil
	}
	plain, i := 0, 0
	for s := blk.PrevSibling; s != nil && i < boxSiblings; s = s.PrevSibling {
		if s.Type != html.ElementNode {
			continue
		}
		i++
		if s.DataAtom == atom.P && attr(s, "class") == "" && countWords(nodeText(s)) >= 10 {
			plain++
		}
	}
	if plain < boxPlainP {
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5PLAIN %q %d\n", collapse(nodeText(t)), plain)
		}
		return nil
	}
	return blk
}

func holdsLink(n *html.Node) bool {
	if n.DataAtom == atom.A && attr(n, "href") != "" {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && holdsLink(c) {
			return true
		}
	}
	return false
}

func holds(a, b *html.Node) bool {
	for p := b; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// lastTextBefore returns the last text node under n that holds a
// visible character and comes before stop (a child of n; nil: the end).
func lastTextBefore(n, stop *html.Node) *html.Node {
	c := n.LastChild
	if stop != nil {
		c = stop
		for c.PrevSibling == nil {
			c = c.Parent
			if c == n || c == nil {
				return nil
			}
		}
		c = c.PrevSibling
	}
	for c != nil {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c
		}
		if c.Type == html.ElementNode && c.LastChild != nil && c.DataAtom != atom.Script && c.DataAtom != atom.Style {
			c = c.LastChild
			continue
		}
		for c.PrevSibling == nil {
			c = c.Parent
			if c == n || c == nil {
				return nil
			}
		}
		c = c.PrevSibling
	}
	return nil
}

var midBox = os.Getenv("E5_BOX") == "mid"

// dropMidBoxes removes every box (see trailingBox) among the article's
// plain paragraphs, not only the trailing one. It walks at most
// midBoxNodes elements.
func dropMidBoxes(n *html.Node) bool {
	const midBoxNodes = 20000
	total := countWords(nodeText(n))
	var boxes []*html.Node
	seen := 0
	var walk func(p *html.Node)
	walk = func(p *html.Node) {
		plain := 0
		for c := p.FirstChild; c != nil && seen < midBoxNodes; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			seen++
			if c.DataAtom == atom.P && attr(c, "class") == "" && countWords(nodeText(c)) >= 10 {
				plain++
				continue
			}
			switch c.DataAtom {
			case atom.Li, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Figure, atom.Figcaption, atom.Blockquote,
				atom.Pre, atom.Code, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				continue
			}
			if plain >= boxPlainP && isBlock(c.DataAtom) && midBoxOf(c) && total-countWords(nodeText(c)) >= boxRestWords {
				boxes = append(boxes, c)
				continue
			}
			walk(c)
		}
	}
	walk(n)
	for _, b := range boxes {
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5MID %q\n", collapse(nodeText(b)))
		}
		b.Parent.RemoveChild(b)
	}
	return len(boxes) > 0
}

// midBoxOf tells whether block b is a box: it, or one inline element
// that fills it, has a class, and it holds a link and 1 to boxWords
// words.
func midBoxOf(b *html.Node) bool {
	w := countWords(nodeText(b))
	if w == 0 || w > boxWords || !holdsLink(b) {
		return false
	}
	if attr(b, "class") != "" {
		return true
	}
	text := collapse(nodeText(b))
	for c := b.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !isBlock(c.DataAtom) && attr(c, "class") != "" && collapse(nodeText(c)) == text {
			return true
		}
	}
	return false
}

var tailOdd = os.Getenv("E5_BOX") == "tail"

// dropOddTail removes the content's last block when it is a short line
// (at most tailWords words, no sentence end, not a bare address) whose
// markup (tag and class) differs from that of the paragraphs before it,
// of which there are at least boxPlainP of 10 words or more.
func dropOddTail(n *html.Node) bool {
	const tailWords = 12
	t := lastTextBefore(n, nil)
	if t == nil {
		return false
	}
	b := trailBlock(n, t)
	if b == nil {
		return false
	}
	text := collapse(nodeText(b))
	if text == "" || countWords(text) > tailWords || endsSentence(text) || bareURL(text) {
		return false
	}
	if countWords(nodeText(n))-countWords(text) < boxRestWords {
		return false
	}
	key := b.Data + "." + attr(b, "class")
	same, other, i := 0, 0, 0
	for s := b.PrevSibling; s != nil && i < boxSiblings; s = s.PrevSibling {
		if s.Type != html.ElementNode {
			continue
		}
		i++
		if countWords(nodeText(s)) < 10 {
			continue
		}
		if s.Data+"."+attr(s, "class") == key {
			same++
		} else if s.DataAtom == atom.P {
			other++
		}
	}
	if same > 0 || other < boxPlainP {
		return false
	}
	if boxDebug {
		fmt.Fprintf(os.Stderr, "E5TAIL %q\n", text)
	}
	b.Parent.RemoveChild(b)
	return true
}

// endsSentence tells whether text ends with a sentence's stop, in any
// script, maybe followed by a closing quote or bracket.
func endsSentence(text string) bool {
	for text != "" {
		r, size := utf8.DecodeLastRuneInString(text)
		switch {
		case strings.ContainsRune(".!?…。！？։۔।", r):
			return true
		case unicode.Is(unicode.Pe, r) || unicode.Is(unicode.Pf, r) || r == '"' || r == '\'':
			text = text[:len(text)-size]
		default:
			return false
		}
	}
	return false
}

// bareURL tells whether text is one address, as a bare link shows it.
func bareURL(text string) bool {
	if !strings.Contains(text, "://") && !strings.HasPrefix(text, "www.") {
		return false
	}
	return strings.Count(text, " ") == 0
}

var dangle = os.Getenv("E5_BOX") == "dangle"

// dropDangling removes headings that end the content: a heading heads
// what follows it, and nothing follows these ("Related", "Share this:",
// a section whose body the cleaning removed). At most three.
func dropDangling(n *html.Node) bool {
	done := false
	for i := 0; i < 3; i++ {
		t := lastTextBefore(n, nil)
		if t == nil {
			return done
		}
		var h *html.Node
		for p := t.Parent; p != nil && p != n; p = p.Parent {
			if p.Type == html.ElementNode && headingAtom(p.DataAtom) {
				h = p
			}
		}
		if h == nil || countWords(nodeText(n))-countWords(nodeText(h)) < boxRestWords {
			return done
		}
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5DANGLE %q\n", collapse(nodeText(h)))
		}
		h.Parent.RemoveChild(h)
		done = true
	}
	return done
}

func headingAtom(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

var joinDebug = os.Getenv("E5_JOIN") != ""

var trailRun = os.Getenv("E5_BOX") == "run"

// The trailing run. The lines a site adds after an article ("Teile
// mich:", "NEXT ARTICLE", "zur Startseite", a category or a source line)
// are short, end no sentence, and are marked as the site's own: the
// block has a class, or it holds a link. The article's own last lines
// are plain paragraphs, or end a sentence.
const (
	runWords = 12    // the most words of a trailing line
	runLines = 3     // the most lines removed
	runNodes = 50000 // the most elements walked
	runRestW = 100   // the fewest words left in the content
)

// dropTrailRun removes the content's last text blocks (blocks without a
// block inside), up to runLines of them, while each is a trailing line
// (see above) and holds the content's last visible text.
func dropTrailRun(n *html.Node) bool {
	var leaves []*html.Node
	seen := 0
	var rec func(p *html.Node) bool
	rec = func(p *html.Node) bool {
		has := false
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.DataAtom == atom.Script || c.DataAtom == atom.Style {
				continue
			}
			if seen++; seen > runNodes {
				return true
			}
			hb := rec(c)
			if isBlock(c.DataAtom) {
				if !hb && strings.TrimSpace(nodeText(c)) != "" {
					leaves = append(leaves, c)
				}
				has = true
			}
			has = has || hb
		}
		return has
	}
	rec(n)
	if seen > runNodes {
		return false
	}
	rest := countWords(nodeText(n))
	done := 0
	for i := len(leaves) - 1; i >= 0 && done < runLines; i-- {
		b := leaves[i]
		t := lastTextBefore(n, nil)
		if t == nil || !holds(b, t) || trailBlock(n, t) == nil {
			break // in a list item, a table, a figure, a quote or code
		}
		text := collapse(nodeText(b))
		w := countWords(text)
		if w > runWords || endsSentence(text) || bareURL(text) || attr(b, "class") == "" && !holdsLink(b) || rest-w < runRestW {
			break
		}
		if i > 0 && sameTemplate(b, leaves[i-1]) && (attr(b, "class") != "" || holdsLink(b) && holdsLink(leaves[i-1])) {
			break // an item of a list or grid the site writes as blocks
		}
		if boxDebug {
			fmt.Fprintf(os.Stderr, "E5RUN %q\n", text)
		}
		b.Parent.RemoveChild(b)
		rest -= w
		done++
	}
	return done > 0
}

// sameTemplate tells whether blocks a and b and their parents have the
// same tags and classes: items of a run of one template.
func sameTemplate(a, b *html.Node) bool {
	for k := 0; k < 2; k++ {
		if a == nil || b == nil || a.Data != b.Data || attr(a, "class") != attr(b, "class") {
			return false
		}
		a, b = a.Parent, b.Parent
	}
	return true
}
