package detect

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// RelocateThreshold is the relocation score under which the watched
// region counts as lost: the run is relocation_failed.
//
// A score is 100 × D × (0.85 + 0.15 S). D is the Dice overlap of the old
// region and the candidate as multisets of text shingles (three words,
// numbers and month names reading alike) and links (each link or source
// counting as linkWeight shingles). S is their structural likeness: half
// the edit similarity of their paths, a quarter for the same tag, a
// quarter the overlap of their classes. Structure only separates
// candidates of like content: it never lifts one whose text and links
// are gone. An unchanged region scores 100, a cosmetically restructured
// one 85 or more, a list that gained a third more items about 85, a
// region half rewritten about 50, a region removed or replaced by
// unrelated content under 25 (at most 26 over 2,400 removals of the
// benchmark on real pages without keywords). 40 sits between: a region
// must keep about two fifths of its content to be found.
const RelocateThreshold = 40.0

// Weights of the relocation score.
const (
	linkWeight      = 2    // shingles a link counts for
	weightStructure = 0.15 // share of the score structure can take away
)

// maxCandidates bounds the elements scored in full.
const maxCandidates = 24

// reference is the previous region in the form relocation compares to.
type reference struct {
	shingles  map[uint64]int32 // shingle → blocks holding it
	nShingles int              // sum over blocks of their distinct shingles
	links     map[string]int32 // link or source → blocks holding it
	nLinks    int
	path      []string
	tag       string
	classes   []string
	omitted   map[string]struct{} // Fingerprint.Omitted
	keys      map[string]struct{} // short keys of the blocks
}

func newReference(f *Fingerprint) *reference {
	r := &reference{
		shingles: make(map[uint64]int32),
		links:    make(map[string]int32),
		path:     strings.Split(f.Path, ">"),
		tag:      f.Tag,
		classes:  f.Classes,
	}
	if len(f.Omitted) > 0 {
		r.omitted = make(map[string]struct{}, len(f.Omitted))
		for _, k := range f.Omitted {
			r.omitted[k] = struct{}{}
		}
	}
	r.keys = make(map[string]struct{}, len(f.Blocks))
	var sh shingler
	for _, b := range f.Blocks {
		r.keys[shortKey(b)] = struct{}{}
		for _, h := range sh.of(b.Text) {
			r.shingles[h]++
			r.nShingles++
		}
		for _, l := range []string{b.Href, b.Src} {
			if l != "" {
				r.links[linkKey(l)]++
				r.nLinks++
			}
		}
	}
	return r
}

// size is the reference's size in shingles, links counting linkWeight.
func (r *reference) size() int { return r.nShingles + linkWeight*r.nLinks }

// linkKey is the form of a stored or read link that relocation
// compares: links are already cleaned, and only a query can still hold
// a token.
func linkKey(l string) string {
	if strings.IndexByte(l, '?') < 0 {
		return l
	}
	return normLink(l)
}

// overlap holds, for the page's blocks, prefix sums of their shingles,
// of those found in the reference, of their links and of those found in
// the reference, and the found shingles and links themselves: ranking
// uses the sums, and the full score the multiset intersection, in which
// a candidate gathering many copies of a common shingle ("#", "read
// more") gains no more than the reference holds.
type overlap struct {
	sh, hit, link, linkHit []int32
	hits                   []uint64 // found shingles, block after block
	links                  []string // found links, block after block
	// omitted marks the blocks that the previous region left out as
	// boilerplate (Fingerprint.Omitted); nil when it left out none.
	omitted []bool
	keys    []string // short keys of the blocks, computed when needed
}

// key returns the short key of block i of p.
func (o *overlap) key(p *page, i int) string {
	if o.keys == nil {
		o.keys = make([]string, len(p.blocks))
	}
	if o.keys[i] == "" {
		o.keys[i] = shortKey(p.blocks[i].Block)
	}
	return o.keys[i]
}

func (p *page) overlap(ref *reference) *overlap {
	n := len(p.blocks)
	o := &overlap{
		sh: make([]int32, n+1), hit: make([]int32, n+1),
		link: make([]int32, n+1), linkHit: make([]int32, n+1),
	}
	var sh shingler
	for i, b := range p.blocks {
		var s, l int32
		for _, x := range sh.of(b.Text) {
			s++
			if _, ok := ref.shingles[x]; ok {
				o.hits = append(o.hits, x)
			}
		}
		for _, u := range []string{b.Href, b.Src} {
			if u != "" {
				l++
				if k := linkKey(u); ref.links[k] > 0 {
					o.links = append(o.links, k)
				}
			}
		}
		o.sh[i+1], o.link[i+1] = o.sh[i]+s, o.link[i]+l
		o.hit[i+1], o.linkHit[i+1] = int32(len(o.hits)), int32(len(o.links))
	}
	if len(ref.omitted) > 0 {
		o.omitted = make([]bool, n)
		for i := range p.blocks {
			_, o.omitted[i] = ref.omitted[shortKey(p.blocks[i].Block)]
		}
	}
	return o
}

// Relocate finds prev's region in doc: every element is ranked by the
// text and link overlap of its blocks with prev's, the best
// maxCandidates are scored in full (see RelocateThreshold) and the best
// of those is returned with its score, low when the region is gone. The
// new fingerprint keeps prev's keywords. doc is not modified.
//
// A fingerprint of ScopeKeywords is found by its keywords instead: the
// region is every keyword block of the page with its context, as Anchor
// chooses it, and the score says how much of prev it holds; it is never
// lost (see Region.Lost) while a keyword is on the page.
//
// It returns ErrNoFingerprint without prev, ErrNoBody for a document
// without body and, when prev has keywords, ErrKeywordsNotFound when no
// block of the page mentions one any more.
func Relocate(doc *html.Node, pageURL string, prev *Fingerprint) (*Region, error) {
	if prev == nil {
		return nil, ErrNoFingerprint
	}
	p := readPage(doc, pageURL)
	if p == nil {
		return nil, ErrNoBody
	}
	keywords := cleanKeywords(prev.Keywords)
	if len(keywords) > 0 && !p.anyMention(keywords) {
		return nil, ErrKeywordsNotFound
	}
	ref := newReference(prev)
	o := p.overlap(ref)
	sc := &scratch{shingles: make(map[uint64]int32), links: make(map[string]int32)}
	if prev.Scope == ScopeKeywords && len(keywords) > 0 {
		s, _ := p.keywordScope(keywords, prev.Boiler)
		root := p.elems[s.root].node
		return &Region{
			Fingerprint: s.fp,
			Markdown:    p.scopeMarkdown(s),
			Score:       max(0, min(100, p.scoreBlocks(root, s.idx, ref, o, sc))),
			root:        root,
		}, nil
	}
	best, score := int32(0), -1.0
	for _, e := range p.candidates(ref, o) {
		s := p.score(e, ref, o, sc)
		if s > score || (s == score && p.elems[e].depth > p.elems[best].depth) {
			best, score = e, s
		}
	}
	return &Region{
		Fingerprint: p.fingerprint(best, prev.Keywords),
		Markdown:    p.markdown(best),
		Score:       max(0, min(100, score)),
		root:        p.elems[best].node,
	}, nil
}

// candidates returns the elements worth a full score: the best ranked
// by overlap (computed in O(1) per element from the prefix sums), or,
// when no element shares anything with the reference, elements of the
// reference's tag and body.
func (p *page) candidates(ref *reference, o *overlap) []int32 {
	type cand struct {
		e     int32
		score float64
	}
	var top []cand
	for i := range p.elems {
		el := &p.elems[i]
		if el.start == el.end {
			continue
		}
		s := dice(float64(o.hit[el.end]-o.hit[el.start]+linkWeight*(o.linkHit[el.end]-o.linkHit[el.start])),
			int(o.sh[el.end]-o.sh[el.start]+linkWeight*(o.link[el.end]-o.link[el.start])), ref.size())
		if s == 0 {
			continue
		}
		if el.node.Data == ref.tag {
			s += 0.01
		}
		if len(top) == maxCandidates && s <= top[len(top)-1].score {
			continue
		}
		k, _ := slices.BinarySearchFunc(top, s, func(c cand, s float64) int {
			if c.score > s {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, k, cand{int32(i), s})
		if len(top) > maxCandidates {
			top = top[:maxCandidates]
		}
	}
	out := make([]int32, 0, maxCandidates+1)
	for _, c := range top {
		out = append(out, c.e)
	}
	if len(out) == 0 {
		for i := range p.elems {
			if p.elems[i].node.Data == ref.tag {
				out = append(out, int32(i))
				if len(out) == maxCandidates {
					break
				}
			}
		}
	}
	return append(out, 0)
}

// score is the full relocation score of element e, over the blocks its
// fingerprint would hold and those it leaves out as boilerplate that
// the previous region held: a class rename can make a footer that the
// region kept (nested in a class-worded wrapper holding most of the
// region) the outermost boilerplate, left out now, and the element is
// still the region, not a smaller one keeping the footer. Compare does
// not count such blocks removed (Fingerprint.Omitted). Text and links
// overlap as multisets.
func (p *page) score(e int32, ref *reference, o *overlap, sc *scratch) float64 {
	_, idx := p.regionBlocks(e)
	el := p.elems[e]
	if len(idx) < int(el.end-el.start) && len(ref.keys) > 0 {
		held := idx[:len(idx):len(idx)]
		j := 0
		for i := int(el.start); i < int(el.end); i++ {
			if j < len(idx) && idx[j] == i {
				j++
				continue
			}
			if _, ok := ref.keys[o.key(p, i)]; ok {
				held = append(held, i)
			}
		}
		idx = held
	}
	return p.scoreBlocks(el.node, idx, ref, o, sc)
}

// scoreBlocks is the relocation score of the page's blocks idx, rooted
// at n. Blocks that the previous region left out as boilerplate do not
// count: once a site renames its classes, the share bar or "related"
// list inside the region looks like content, and the region holding it
// is still the region, not a smaller element without it.
func (p *page) scoreBlocks(n *html.Node, idx []int, ref *reference, o *overlap, sc *scratch) float64 {
	var tc, lc int
	clear(sc.shingles)
	clear(sc.links)
	for _, i := range idx {
		if o.omitted != nil && o.omitted[i] {
			continue
		}
		tc += int(o.sh[i+1] - o.sh[i])
		lc += int(o.link[i+1] - o.link[i])
		for _, x := range o.hits[o.hit[i]:o.hit[i+1]] {
			sc.shingles[x]++
		}
		for _, k := range o.links[o.linkHit[i]:o.linkHit[i+1]] {
			sc.links[k]++
		}
	}
	var th, lh float64
	for x, c := range sc.shingles {
		th += float64(min(c, ref.shingles[x]))
	}
	for k, c := range sc.links {
		lh += float64(min(c, ref.links[k]))
	}
	d := dice(th+linkWeight*lh, tc+linkWeight*lc, ref.size())
	s := structure(n, ref)
	return 100 * d * (1 - weightStructure + weightStructure*s)
}

// scratch holds the maps score reuses.
type scratch struct {
	shingles map[uint64]int32
	links    map[string]int32
}

// dice is the Dice coefficient of two collections of sizes a and b
// sharing hits elements.
func dice(hits float64, a, b int) float64 {
	if a+b == 0 {
		return 0
	}
	return 2 * min(hits, float64(a), float64(b)) / float64(a+b)
}

// structure is the structural likeness of n to the reference: half the
// edit similarity of their paths, a quarter for the same tag, a quarter
// the overlap of their classes.
func structure(n *html.Node, ref *reference) float64 {
	path := strings.Split(pathOf(n), ">")
	s := 0.5 * (1 - float64(editDistance(path, ref.path))/float64(max(len(path), len(ref.path), 1)))
	if n.Data == ref.tag {
		s += 0.25
	}
	return s + 0.25*jaccard(classesOf(n), ref.classes)
}

// editDistance is the Levenshtein distance of two tag sequences.
func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// jaccard is the Jaccard index of two small sets; 1 when both are empty.
func jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
