package detect

import "golang.org/x/net/html"

// Boilerplate and regions. The walk marks elements that look like
// boilerplate; settleBoilerplate overrules the weakest marks for the
// page, and leftOut decides, for one region, which boilerplate inside it
// the region leaves out.

// maxBoilerShare is the share of text above which an element that looks
// like boilerplate is content after all: "container no-sidebar" may wrap
// a whole article, and some sites put the article in an <aside>.
const maxBoilerShare = 0.5

// minKeptShare is the share of a region's text that leaving out its
// boilerplate must keep; below it, the region keeps everything (a page
// made only of what looks like boilerplate is still watched).
const minKeptShare = 0.25

// settleBoilerplate drops the boilerplate marks made only by a class or
// id word on elements holding <main> or more than maxBoilerShare of the
// page's text, and points every block and element at its innermost
// boilerplate ancestor that remains.
func (p *page) settleBoilerplate() {
	text := p.textPrefix()
	total := text[len(p.blocks)]
	revoked := make(map[int32]bool)
	for i := range p.elems {
		e := &p.elems[i]
		if e.boiler && e.hint && (e.hasMain || float64(text[e.end]-text[e.start]) > maxBoilerShare*float64(total)) {
			revoked[int32(i)] = true
			e.boiler = false
		}
	}
	if len(revoked) == 0 {
		return
	}
	up := func(e int32) int32 {
		for e >= 0 && revoked[e] {
			e = p.elems[e].bpUp
		}
		return e
	}
	// Elements come in document order, parents first: their bpUp is
	// settled before their children's.
	for i := range p.elems {
		p.elems[i].bpUp = up(p.elems[i].bpUp)
	}
	for i := range p.blocks {
		p.blocks[i].bpe = up(p.blocks[i].bpe)
	}
}

// textPrefix returns the prefix sums of the blocks' weights (see weight).
func (p *page) textPrefix() []int {
	text := make([]int, len(p.blocks)+1)
	for i := range p.blocks {
		text[i+1] = text[i] + weight(&p.blocks[i])
	}
	return text
}

// weight is how much a block counts in shares of text: its length, one
// more so that a link or an image alone counts.
func weight(b *pblock) int { return len(b.Text) + 1 }

// outerBoiler returns the outermost boilerplate element holding block b
// deeper than depth, or -1.
func (p *page) outerBoiler(b *pblock, depth int32) int32 {
	out := int32(-1)
	for e := b.bpe; e >= 0 && p.elems[e].depth > depth; e = p.elems[e].bpUp {
		out = e
	}
	return out
}

// leftOut returns the boilerplate elements inside element e that e's
// region leaves out: the outermost ones, except one holding more than
// maxBoilerShare of the region's text (it is the content), and none when
// leaving them out would keep less than minKeptShare of the text.
func (p *page) leftOut(e int32) map[int32]bool {
	el := p.elems[e]
	size := make(map[int32]int)
	total := 0
	for i := el.start; i < el.end; i++ {
		b := &p.blocks[i]
		w := weight(b)
		total += w
		if o := p.outerBoiler(b, el.depth); o >= 0 {
			size[o] += w
		}
	}
	out := make(map[int32]bool, len(size))
	kept := total
	for o, n := range size {
		if float64(n) > maxBoilerShare*float64(total) {
			continue
		}
		out[o] = true
		kept -= n
	}
	if float64(kept) < minKeptShare*float64(total) {
		return nil
	}
	return out
}

// regionBlocks returns the blocks of element e's region, within the
// fingerprint's bounds, and their indices in the page.
func (p *page) regionBlocks(e int32) ([]pblock, []int) {
	el := p.elems[e]
	out := p.leftOut(e)
	var blocks []pblock
	var idx []int
	text := 0
	for i := el.start; i < el.end; i++ {
		b := &p.blocks[i]
		if o := p.outerBoiler(b, el.depth); o >= 0 && out[o] {
			continue
		}
		if len(blocks) == maxBlocks || text+len(b.Text) > maxText {
			break
		}
		text += len(b.Text)
		blocks = append(blocks, *b)
		idx = append(idx, int(i))
	}
	return blocks, idx
}

// leftOutNodes returns the nodes of leftOut(e).
func (p *page) leftOutNodes(e int32) map[*html.Node]bool {
	out := make(map[*html.Node]bool)
	for o := range p.leftOut(e) {
		out[p.elems[o].node] = true
	}
	return out
}
