package detect

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/content"
)

// fingerprint builds the fingerprint of element e.
func (p *page) fingerprint(e int32, keywords []string) *Fingerprint {
	n := p.elems[e].node
	pbs, _ := p.regionBlocks(e)
	blocks := make([]Block, len(pbs))
	for i, b := range pbs {
		blocks[i] = b.Block
	}
	return &Fingerprint{
		Path:     pathOf(n),
		Tag:      n.Data,
		Classes:  classesOf(n),
		Blocks:   blocks,
		Keywords: keywords,
		Hash:     hashBlocks(blocks),
		Omitted:  p.omitted(e),
	}
}

// omitted lists the short keys of the blocks inside element e that its
// region leaves out as boilerplate, within the fingerprint's block bound.
func (p *page) omitted(e int32) []string {
	el := p.elems[e]
	out := p.leftOut(e)
	if len(out) == 0 {
		return nil
	}
	var keys []string
	for i := el.start; i < el.end && len(keys) < maxBlocks; i++ {
		b := &p.blocks[i]
		if o := p.outerBoiler(b, el.depth); o >= 0 && out[o] {
			keys = append(keys, shortKey(b.Block))
		}
	}
	return keys
}

// shortKey is a block's comparison key, hashed short for storage.
func shortKey(b Block) string {
	sum := sha256.Sum256([]byte(blockKey(b)))
	return hex.EncodeToString(sum[:8])
}

// pathOf returns the tags from the root to n, joined by ">", keeping
// the last maxPathSegs of them.
func pathOf(n *html.Node) string {
	var segs []string
	for c := n; c != nil && c.Type == html.ElementNode; c = c.Parent {
		if len(segs) == maxPathSegs {
			break
		}
		segs = append(segs, c.Data)
	}
	slices.Reverse(segs)
	return strings.Join(segs, ">")
}

func classesOf(n *html.Node) []string {
	var out []string
	for c := range strings.FieldsSeq(attr(n, "class")) {
		if len(out) == maxClasses {
			break
		}
		if len(c) <= 100 && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// blockKey is the form of a block that comparisons and the hash use.
func blockKey(b Block) string {
	return Normalize(b.Text) + "\x00" + normLink(b.Href) + "\x00" + normLink(b.Src)
}

// hashBlocks is the hex SHA-256 of the sorted block keys.
func hashBlocks(blocks []Block) string {
	keys := make([]string, len(blocks))
	for i, b := range blocks {
		keys[i] = blockKey(b)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0x1e})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Bounds of the copy a region's markdown is made from: the text and
// block bounds are the fingerprint's, so the snapshot shows what is
// watched.
const (
	maxMarkdownNodes = 50_000
	maxMarkdownDepth = 512
)

// markdown renders element e as markdown without what its blocks leave
// out (scripts, hidden elements, boilerplate inside it).
func (p *page) markdown(e int32) string {
	n := p.elems[e].node
	budget := cloneBudget{nodes: maxMarkdownNodes, text: maxText, blocks: maxBlocks}
	k := p.cloneRegion(n, p.leftOutNodes(e), 0, &budget)
	if k == nil {
		return ""
	}
	base := ""
	if p.base != nil {
		base = p.base.String()
	}
	md := content.NodeMarkdown(k, base)
	if len(md) > maxMarkdownOut {
		md = md[:maxMarkdownOut]
	}
	return md
}

// cloneBudget is what a region's copy may still take.
type cloneBudget struct{ nodes, text, blocks int }

// cloneRegion copies n for the markdown converter, leaving out what a
// region does not hold; links lose their tracking parameters. A form becomes a div: the converter drops
// forms, and some sites wrap their whole page in one.
func (p *page) cloneRegion(n *html.Node, out map[*html.Node]bool, depth int, budget *cloneBudget) *html.Node {
	if budget.nodes <= 0 || budget.text <= 0 || budget.blocks <= 0 {
		return nil
	}
	if n.Type == html.ElementNode {
		if n.Namespace != "" || skipped(n) || content.Hidden(n) || out[n] {
			return nil
		}
	} else if n.Type != html.TextNode {
		return nil
	}
	budget.nodes--
	if n.Type == html.TextNode {
		budget.text -= len(n.Data)
	} else if blockTags[n.DataAtom] {
		budget.blocks--
	}
	k := &html.Node{Type: n.Type, Data: n.Data, DataAtom: n.DataAtom}
	if len(n.Attr) > 0 {
		k.Attr = append([]html.Attribute(nil), n.Attr...)
		for i := range k.Attr {
			if a := &k.Attr[i]; a.Key == "href" || a.Key == "src" {
				if u, err := url.Parse(strings.TrimSpace(a.Val)); err == nil {
					a.Val = cleanLink(u)
				}
			}
		}
	}
	if n.DataAtom == atom.Form {
		k.Data, k.DataAtom = "div", atom.Div
	}
	if depth >= maxMarkdownDepth {
		return k
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if kc := p.cloneRegion(c, out, depth+1, budget); kc != nil {
			k.AppendChild(kc)
		}
	}
	return k
}
