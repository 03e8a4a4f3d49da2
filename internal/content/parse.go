package content

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The HTML parser refuses a page whose open elements nest deeper than
// 512 ("open stack of elements exceeds 512 nodes"). Browsers have no
// such limit, and real pages reach it without malice: a template that
// opens a <div> per comment and never closes it, a forum's quotes of
// quotes, tables in tables. Such a page would be an error for fetch, a
// failed check for every monitor on it, no documents for a filing.
// parseHTML parses it again with the elements nested past a depth
// dropped (their text stays, in document order, as siblings of the
// deepest element kept), as a browser's layout of it reads.

// flattenings are the ways a deep page is flattened, tried in turn
// until the parser accepts it: the depth past which start tags are
// dropped, counted as the markup nests (the parser's own stack runs
// deeper where it inserts elements the markup leaves out, a table's
// <tbody> and <tr>), and, last, without formatting elements at all:
// the parser reopens every formatting element left open (<b>, <font>…)
// in each new block, so a page that leaves hundreds open nests deep
// however its blocks are closed.
var flattenings = [...]struct {
	depth      int
	formatting bool
}{{384, true}, {128, true}, {32, false}}

// errTooDeep reports a page the parser refuses even flattened the last
// way of flattenings.
var errTooDeep = errors.New("html: elements nested too deep to parse")

// ParseHTML parses an HTML page as parseHTML does: a page nested deeper
// than the parser allows is parsed with its deepest elements flattened
// instead of refused. Every caller that parses a stranger's HTML goes
// through it.
func ParseHTML(body []byte) (*html.Node, error) {
	return parseHTML(func() io.Reader { return bytes.NewReader(body) })
}

// parseHTML parses the page open returns; open is called again, for a
// fresh reader of the same page, when the page must be flattened.
func parseHTML(open func() io.Reader) (*html.Node, error) {
	root, err := html.Parse(open())
	if err == nil || !tooDeep(err) {
		return root, err
	}
	var flat bytes.Buffer
	for _, f := range flattenings {
		flat.Reset()
		if err := flatten(&flat, open(), f.depth, f.formatting); err != nil {
			return nil, err
		}
		root, err = html.Parse(bytes.NewReader(flat.Bytes()))
		if err == nil || !tooDeep(err) {
			return root, err
		}
	}
	return nil, errTooDeep
}

// tooDeep tells whether err is the parser's refusal of a deep page.
func tooDeep(err error) bool {
	return strings.Contains(err.Error(), "open stack of elements exceeds")
}

// flatten copies the page from r to w token by token, each token's
// bytes as they are, except start tags that would open an element
// deeper than depth and the end tags that would close them. Depth is
// counted as the markup nests: a start tag opens an element unless it
// is void, and an end tag closes the innermost open element of its name
// and those inside it; an end tag that closes a dropped element is
// dropped, any other is kept as it is (the parser decides what it
// closes, or ignores it). A self-closed start tag opens its element
// too, as the parser reads it outside SVG and MathML (in them the count
// runs high until the <svg> or <math> closes). Elements whose content
// the tokenizer reads as raw text (script, style, textarea, title…) are
// always kept, so their content never turns into page text. Without
// formatting, the tags of formatting elements are all dropped.
func flatten(w *bytes.Buffer, r io.Reader, depth int, formatting bool) error {
	z := html.NewTokenizer(r)
	var open []openTag       // every element the markup opened, kept or dropped
	at := map[string][]int{} // name → its indexes in open, innermost last
	kept := 0                // open elements not dropped
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if !formatting && formattingElement(a) {
				continue
			}
			if voidElement(a) {
				break
			}
			drop := kept >= depth && !rawTextElement(a)
			k := string(name)
			at[k] = append(at[k], len(open))
			open = append(open, openTag{name: k, dropped: drop})
			if drop {
				continue
			}
			kept++
		case html.EndTagToken:
			name, _ := z.TagName()
			if !formatting && formattingElement(atom.Lookup(name)) {
				continue
			}
			idx := at[string(name)]
			if len(idx) == 0 {
				break
			}
			i := idx[len(idx)-1]
			dropped := open[i].dropped
			for j := len(open) - 1; j >= i; j-- {
				o := open[j]
				at[o.name] = at[o.name][:len(at[o.name])-1]
				if !o.dropped {
					kept--
				}
			}
			open = open[:i]
			if dropped {
				continue
			}
		}
		w.Write(z.Raw())
	}
}

// openTag is an element flatten saw opened and not yet closed.
type openTag struct {
	name    string
	dropped bool
}

// voidElement tells whether an element of atom a never has content
// (its start tag opens nothing).
func voidElement(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input,
		atom.Keygen, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// rawTextElement tells whether the tokenizer reads the content of an
// element of atom a as raw text.
func rawTextElement(a atom.Atom) bool {
	switch a {
	case atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript, atom.Plaintext, atom.Script,
		atom.Style, atom.Textarea, atom.Title, atom.Xmp:
		return true
	}
	return false
}

// formattingElement tells whether the parser keeps an element of atom a
// among its active formatting elements (reopened after a block closes).
func formattingElement(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr, atom.S,
		atom.Small, atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}
