package detect

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Signal is one changed field of a region: a block's text or link.
type Signal struct {
	Field string  `json:"field"` // "text", "attr:href", "attr:src"
	From  *string `json:"from"`
	To    *string `json:"to"`
	Ratio float64 `json:"ratio"` // similarity of from and to, 0..1 (0 for added/removed)
}

// Change is the result of comparing two versions of a region.
type Change struct {
	Changed    bool     // the normalised region differs (as a multiset: reordering is not a change)
	Material   bool     // Changed and (no keywords, or some added, changed or removed text contains a keyword)
	Suppressed bool     // Changed but no keyword in the added, changed or removed text
	Signals    []Signal // at most maxSignals, each text at most maxSignalText bytes
	PDFLinks   []string // document links of the added/changed blocks, absolute, deduplicated
	Preview    string   // excerpt (≤ maxPreview bytes) of the added/changed text
}

// Bounds of pairing added with removed blocks.
const (
	maxPairWork  = 250_000 // added × removed pairs compared word by word
	minPairRatio = 0.5     // word overlap under which blocks are not the same block
)

// Compare compares two versions of a region. Blocks are matched as a
// multiset of normalised keys (text, link, source); the unmatched ones
// of cur are added, those of prev removed, and an added block whose
// words overlap a removed one by half or more is that block changed.
// With keywords (lower-cased, as Fingerprint.Keywords), a change is
// material only when the text of an added or removed block, or the old
// or new text of a changed one, contains one of them; otherwise it is
// suppressed. A nil fingerprint counts as an empty region.
func Compare(prev, cur *Fingerprint, keywords []string) Change {
	var pb, cb []Block
	if prev != nil {
		pb = prev.Blocks
	}
	if cur != nil {
		cb = cur.Blocks
	}
	keywords = cleanKeywords(keywords)
	added, removed := diffBlocks(pb, cb)
	if prev != nil && cur != nil {
		// A block that was left out as boilerplate before and is kept now,
		// or the other way round, moved; it did not appear or vanish.
		if prev.Scope == ScopeKeywords && cur.Scope == ScopeKeywords && len(keywords) > 0 {
			// A keyword block moved between the scope and the rest of the
			// page (its container became boilerplate or content) when the
			// page holds it as many times as before: counted over the
			// scope and Outside, so a block gone from the content while a
			// menu repeats it is still removed, and a new one beside the
			// menu's copy still added.
			added, removed = withoutMoved(prev, cur, added, removed, keywords)
		} else {
			added = withoutOmitted(added, cb, prev.Outside)
		}
		added = withoutOmitted(added, cb, prev.Omitted)
		removed = withoutOmitted(removed, pb, cur.Omitted)
	}
	var ch Change
	if len(added) == 0 && len(removed) == 0 {
		return ch
	}
	ch.Changed = true
	pairs := pairBlocks(pb, cb, added, removed)

	var preview []string
	var signals []Signal
	paired := make(map[int]bool, len(pairs))
	for _, a := range added {
		c := cb[a]
		r, ok := pairs[a]
		if ok {
			paired[r] = true
			p := pb[r]
			signals = append(signals, changedSignals(p, c)...)
			if mentions(c.Text, keywords) || mentions(p.Text, keywords) {
				ch.Material = true
			}
		} else {
			signals = append(signals, addedSignals(c)...)
			if mentions(c.Text, keywords) {
				ch.Material = true
			}
		}
		if c.Text != "" {
			preview = append(preview, c.Text)
		}
		for _, l := range []string{c.Href, c.Src} {
			if isDocumentLink(l) && !slices.Contains(ch.PDFLinks, l) && len(ch.PDFLinks) < maxPDFLinks {
				ch.PDFLinks = append(ch.PDFLinks, l)
			}
		}
	}
	var gone []string
	for _, r := range removed {
		if paired[r] {
			continue
		}
		signals = append(signals, removedSignals(pb[r])...)
		if mentions(pb[r].Text, keywords) {
			ch.Material = true
		}
		if pb[r].Text != "" {
			gone = append(gone, pb[r].Text)
		}
	}
	if len(keywords) == 0 {
		ch.Material = true
	}
	ch.Suppressed = !ch.Material
	if len(signals) > maxSignals {
		signals = signals[:maxSignals]
	}
	ch.Signals = signals
	if len(preview) == 0 {
		preview = gone
	}
	ch.Preview = truncate(strings.Join(preview, "\n"), maxPreview)
	return ch
}

// withoutMoved drops from added and removed the keyword blocks that
// only moved between two keyword scopes and the blocks they left out
// (Outside): for each key, the page's count (scope blocks plus Outside)
// going down is that many removals, going up that many additions, and
// the other added or removed blocks of that key moved.
func withoutMoved(prev, cur *Fingerprint, added, removed []int, keywords []string) ([]int, []int) {
	count := func(f *Fingerprint) map[string]int {
		m := make(map[string]int, len(f.Blocks)+len(f.Outside))
		for _, b := range f.Blocks {
			if mentions(b.Text, keywords) {
				m[shortKey(b)]++
			}
		}
		for _, k := range f.Outside {
			m[k]++
		}
		return m
	}
	before, after := count(prev), count(cur)
	keep := func(idx []int, bs []Block, real func(k string) int) []int {
		kept := idx[:0:0]
		left := make(map[string]int)
		for _, i := range idx {
			if !mentions(bs[i].Text, keywords) {
				kept = append(kept, i)
				continue
			}
			k := shortKey(bs[i])
			n, ok := left[k]
			if !ok {
				n = real(k)
			}
			if n > 0 {
				kept = append(kept, i)
				n--
			}
			left[k] = n
		}
		return kept
	}
	added = keep(added, cur.Blocks, func(k string) int { return after[k] - before[k] })
	removed = keep(removed, prev.Blocks, func(k string) int { return before[k] - after[k] })
	return added, removed
}

// withoutOmitted drops from idx the blocks of bs whose key is in omitted.
func withoutOmitted(idx []int, bs []Block, omitted []string) []int {
	if len(omitted) == 0 || len(idx) == 0 {
		return idx
	}
	set := make(map[string]struct{}, len(omitted))
	for _, k := range omitted {
		set[k] = struct{}{}
	}
	kept := idx[:0:0]
	for _, i := range idx {
		if _, ok := set[shortKey(bs[i])]; !ok {
			kept = append(kept, i)
		}
	}
	return kept
}

// diffBlocks returns the indices of the blocks of cur that prev does
// not hold (added) and of those of prev that cur does not hold
// (removed), counting equal keys as a multiset.
func diffBlocks(prev, cur []Block) (added, removed []int) {
	pk := make([]string, len(prev))
	count := make(map[string]int, len(prev))
	for i, b := range prev {
		pk[i] = blockKey(b)
		count[pk[i]]++
	}
	for i, b := range cur {
		k := blockKey(b)
		if count[k] > 0 {
			count[k]--
			continue
		}
		added = append(added, i)
	}
	// What remains in count was not matched; take the last ones of each
	// key as removed.
	for i := len(prev) - 1; i >= 0; i-- {
		if count[pk[i]] > 0 {
			count[pk[i]]--
			removed = append(removed, i)
		}
	}
	slices.Reverse(removed)
	return added, removed
}

// pairBlocks pairs added blocks with removed ones: first those whose
// normalised text is equal (only a link or source changed), then, when
// the work is bounded, the pairs of highest word overlap above
// minPairRatio. It maps an added index to a removed index.
func pairBlocks(prev, cur []Block, added, removed []int) map[int]int {
	pairs := make(map[int]int)
	if len(added) == 0 || len(removed) == 0 {
		return pairs
	}
	byText := make(map[string][]int)
	for _, r := range removed {
		t := Normalize(prev[r].Text)
		byText[t] = append(byText[t], r)
	}
	used := make(map[int]bool)
	var restA []int
	for _, a := range added {
		t := Normalize(cur[a].Text)
		if rs := byText[t]; len(rs) > 0 {
			pairs[a] = rs[0]
			used[rs[0]] = true
			byText[t] = rs[1:]
			continue
		}
		restA = append(restA, a)
	}
	var restR []int
	for _, r := range removed {
		if !used[r] {
			restR = append(restR, r)
		}
	}
	if len(restA) == 0 || len(restR) == 0 || len(restA)*len(restR) > maxPairWork {
		return pairs
	}
	wordSet := func(s string) map[string]struct{} {
		m := make(map[string]struct{})
		for _, w := range words(Normalize(s), nil) {
			m[w] = struct{}{}
		}
		return m
	}
	rw := make([]map[string]struct{}, len(restR))
	for i, r := range restR {
		rw[i] = wordSet(prev[r].Text)
	}
	type cand struct {
		a, r  int
		ratio float64
	}
	var cands []cand
	for _, a := range restA {
		aw := wordSet(cur[a].Text)
		for i, r := range restR {
			if x := setDice(aw, rw[i]); x >= minPairRatio {
				cands = append(cands, cand{a, r, x})
			}
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int {
		switch {
		case x.ratio > y.ratio:
			return -1
		case x.ratio < y.ratio:
			return 1
		}
		return 0
	})
	for _, c := range cands {
		if _, done := pairs[c.a]; done || used[c.r] {
			continue
		}
		pairs[c.a] = c.r
		used[c.r] = true
	}
	return pairs
}

func setDice(a, b map[string]struct{}) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	inter := 0
	for w := range a {
		if _, ok := b[w]; ok {
			inter++
		}
	}
	return 2 * float64(inter) / float64(len(a)+len(b))
}

func addedSignals(b Block) []Signal {
	var out []Signal
	if b.Text != "" {
		out = append(out, Signal{Field: "text", To: capped(b.Text)})
	}
	if b.Href != "" {
		out = append(out, Signal{Field: "attr:href", To: capped(b.Href)})
	}
	if b.Src != "" {
		out = append(out, Signal{Field: "attr:src", To: capped(b.Src)})
	}
	return out
}

func removedSignals(b Block) []Signal {
	var out []Signal
	if b.Text != "" {
		out = append(out, Signal{Field: "text", From: capped(b.Text)})
	}
	if b.Href != "" {
		out = append(out, Signal{Field: "attr:href", From: capped(b.Href)})
	}
	if b.Src != "" {
		out = append(out, Signal{Field: "attr:src", From: capped(b.Src)})
	}
	return out
}

// changedSignals reports what differs between two paired blocks.
func changedSignals(p, c Block) []Signal {
	var out []Signal
	if Normalize(p.Text) != Normalize(c.Text) {
		out = append(out, pairSignal("text", p.Text, c.Text))
	}
	if normLink(p.Href) != normLink(c.Href) {
		out = append(out, pairSignal("attr:href", p.Href, c.Href))
	}
	if normLink(p.Src) != normLink(c.Src) {
		out = append(out, pairSignal("attr:src", p.Src, c.Src))
	}
	return out
}

func pairSignal(field, from, to string) Signal {
	s := Signal{Field: field, From: capped(from), To: capped(to)}
	if s.From != nil && s.To != nil {
		s.Ratio = ratio(*s.From, *s.To)
	}
	return s
}

// capped returns a pointer to s cut to maxSignalText bytes, nil for "".
func capped(s string) *string {
	if s == "" {
		return nil
	}
	s = truncate(s, maxSignalText)
	return &s
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ratio is the similarity of two strings: twice the characters their
// diff keeps, over their total length.
func ratio(a, b string) float64 {
	if a == b {
		return 1
	}
	total := utf8.RuneCountInString(a) + utf8.RuneCountInString(b)
	if total == 0 {
		return 1
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	common := 0
	for _, d := range dmp.DiffMain(a, b, false) {
		if d.Type == diffmatchpatch.DiffEqual {
			common += utf8.RuneCountInString(d.Text)
		}
	}
	return 2 * float64(common) / float64(total)
}

// DocumentLinks lists the document links (pdf, xlsx, docx …) of a
// region's blocks, deduplicated, in document order.
func DocumentLinks(f *Fingerprint) []string {
	if f == nil {
		return nil
	}
	var out []string
	seen := make(map[string]bool)
	for _, b := range f.Blocks {
		for _, l := range []string{b.Href, b.Src} {
			if isDocumentLink(l) && !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}
