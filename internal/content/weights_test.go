package content

import (
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// negativeHintFields is negativeHint reading the names of every value
// (no test for "hid" first).
func negativeHintFields(v string) bool {
	if negativeHints.in(v) || hiddenHint(v) {
		return true
	}
	for f := range strings.FieldsSeq(v) {
		if f == "hid" {
			return true
		}
	}
	return false
}

// classWeightDirect is classWeight read for each element, without the
// memo of class values.
func classWeightDirect(n *html.Node) int {
	w := 0
	for _, key := range []string{"class", "id"} {
		v := attr(n, key)
		if v == "" {
			continue
		}
		v = strings.ToLower(v)
		if negativeHintFields(v) {
			w -= 25
		}
		if positiveHints.in(v) {
			w += 25
		}
	}
	return w
}

// TestClassWeightMemo: the weights classWeight reads through
// readable.weights, and negativeHint's test for "hid", give the
// weights read element by element, on generated class and id values
// (past the memo's size and length limits, read again, with and
// without the attempt's flag).
func TestClassWeightMemo(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	words := []string{"hid", "HID", "hidden", "hidden-xs", "hide", "comment", "Content", "article", "sidebar",
		"post", "share", "widget", "entry", " ", "-", "_", "x", "é", "K", "\u00a0", "\t", "ahid", "hidx"}
	gen := func() string {
		var b strings.Builder
		for k := rng.Intn(6); k > 0; k-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		if rng.Intn(20) == 0 {
			b.WriteString(strings.Repeat("z", namesMaxLen))
		}
		return b.String()
	}
	r := &readable{flags: flagWeightClasses}
	seen := map[int]bool{}
	for i := range 6000 {
		n := &html.Node{Type: html.ElementNode, Data: "div"}
		if v := gen(); v != "" {
			n.Attr = append(n.Attr, html.Attribute{Key: "class", Val: v})
		}
		if rng.Intn(2) == 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "id", Val: gen()})
		}
		want := classWeightDirect(n)
		seen[want] = true
		for range 2 {
			if got := r.classWeight(n); got != want {
				t.Fatalf("%v: classWeight %d, read directly %d", n.Attr, got, want)
			}
		}
		if i%10 == 0 {
			r.flags = 0
			if got := r.classWeight(n); got != 0 {
				t.Fatalf("%v: classWeight %d without flagWeightClasses", n.Attr, got)
			}
			r.flags = flagWeightClasses
		}
		for _, a := range n.Attr {
			v := strings.ToLower(a.Val)
			if negativeHint(v) != negativeHintFields(v) {
				t.Fatalf("%q: negativeHint %v", v, negativeHint(v))
			}
		}
	}
	if len(seen) < 5 {
		t.Fatalf("weights %v only", seen)
	}
	if len(r.weights) != namesMax {
		t.Fatalf("memo holds %d values, want %d", len(r.weights), namesMax)
	}
}

// TestScoresOfCandidates: the candidates' scores are the first of
// readable.scores, in their order, and every element credited or
// chosen has one score.
func TestScoresOfCandidates(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for range 300 {
		page := randomShortPage(rng)
		root, _ := parseBody(t, page)
		r := &readable{body: findBody(root), bodyLen: -1, bodyOver: -1}
		r.attempt(flagStripUnlikely | flagWeightClasses | flagCleanConditionally)
		if len(r.scored) != len(r.scores) || len(r.cands) > len(r.scores) {
			t.Fatalf("%s: %d scored, %d scores, %d candidates", page, len(r.scored), len(r.scores), len(r.cands))
		}
		for i, c := range r.cands {
			if r.scored[c] != int32(i) {
				t.Fatalf("%s: candidate %d at %d", page, i, r.scored[c])
			}
		}
	}
}

// TestHintListsAsEachList: hintLists.in tells each list's in of a
// string, on strings of the lists' hints (whole, cut, overlapping) and
// other bytes.
func TestHintListsAsEachList(t *testing.T) {
	var pieces []string
	for _, h := range matchHints.lists {
		for _, list := range h.byFirst {
			for _, w := range list {
				pieces = append(pieces, w, w[:len(w)-1], w[1:])
			}
		}
	}
	pieces = append(pieces, " ", "-", "x", "é", "\xff", "a", "s")
	check := func(s string) {
		var want uint32
		for k, h := range matchHints.lists {
			if h.in(s) {
				want |= 1 << k
			}
		}
		if got := matchHints.in(s); got != want {
			t.Fatalf("%q: hintLists %b, each list %b", s, got, want)
		}
	}
	rng := rand.New(rand.NewSource(10))
	for range 50000 {
		var b strings.Builder
		for k := rng.Intn(5); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		check(b.String())
	}
}

// TestPrefixesByFirst: wordsKinds compares a word with the classPrefixes
// of its first byte only, which are all the prefixes it may start with:
// each prefix is listed once, under its first byte; words written
// without separators are still told by them.
func TestPrefixesByFirst(t *testing.T) {
	n := 0
	for c, list := range prefixesByFirst {
		for _, p := range list {
			if p.word[0] != byte(c) {
				t.Errorf("%q listed under %q", p.word, rune(c))
			}
			n++
		}
	}
	if n != len(classPrefixes) {
		t.Errorf("%d prefixes listed, %d in classPrefixes", n, len(classPrefixes))
	}
	for v, want := range map[string]boilerKind{"relatedposts": kindRelated, "bylinebox": kindMeta,
		"SponsoredContent": kindCTA, "x-paywalled": kindCTA, "related": kindRelated, "relative": 0, "byline": kindMeta} {
		if got := wordsKinds(v); got != want {
			t.Errorf("wordsKinds(%q) = %b, want %b", v, got, want)
		}
	}
}

// TestMatchFactsOfParts: the matchFacts of a class and an id read apart
// and joined (joinParts) are those of their matchString read whole, on
// generated values of hints, hiding and showing names, regions, case
// and bytes that lower-case to other lengths or are no UTF-8.
func TestMatchFactsOfParts(t *testing.T) {
	words := []string{"byline", "Author", "sidebar", "menu", "main", "content", "modal", "popup", "hid", "hidden",
		"d-none", "sr-only", "visible-lg", "md:block", "x:hidden", "has-sidebar", "print", "footer", "HEADER", " ",
		"-", "_", "\xff", "\u00a0", "İ", "K", "é", "and", "column", "none", "is-hidden", "hidden-xs"}
	for _, seed := range []int64{12, 13, 14} {
		rng := rand.New(rand.NewSource(seed))
		gen := func() string {
			var b strings.Builder
			for k := rng.Intn(5); k > 0; k-- {
				b.WriteString(words[rng.Intn(len(words))])
			}
			return b.String()
		}
		for range 30000 {
			class, id := gen(), gen()
			m := matchOf(class, id)
			var want uint8
			if m != "" {
				if bylineHints.in(m) {
					want |= hintByline
				}
				if unlikelyHints.in(m) && !maybeHints.in(m) {
					want |= hintUnlikely
				}
				if popupHints.in(m) {
					want |= hintPopup
				}
				if hideHints.in(m) && hidingClass(m) {
					want |= hintHide
				}
				if pageRegion(m) {
					want |= hintRegion
				}
			}
			if got := readMatchFacts(class, id); got.hints != want {
				t.Fatalf("%q %q: parts %b, whole (%q) %b", class, id, got.hints, m, want)
			}
		}
	}
}
