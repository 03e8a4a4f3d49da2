package content

import (
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// randomClass is a class or id value of pieces that come near "share"
// in case, modifiers and characters outside ASCII.
func randomClass(rng *rand.Rand) string {
	pieces := []string{"share", "SHARE", "Share", "shar", "hare", "sharedaddy", "post-share", "has-share",
		"with-sharing", "ſhare", "ShAre", "social", " ", "-", "_", "K", "İ", "entry", "x", "sh", "are", "é"}
	var b strings.Builder
	for k := rng.Intn(5); k >= 0; k-- {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	return b.String()
}

// TestMayNameSharePrefilter: the share-box step of prepare asks
// mayNameShare before matchString; on generated class and id values it
// is true wherever shareHint of matchString is.
func TestMayNameSharePrefilter(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	passed := 0
	for range 20000 {
		n := &html.Node{Type: html.ElementNode, Data: "div"}
		if rng.Intn(4) > 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "class", Val: randomClass(rng)})
		}
		if rng.Intn(2) > 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "id", Val: randomClass(rng)})
		}
		m := matchString(n)
		full := m != "" && shareHint(m)
		if full && !mayNameShare(n) {
			t.Fatalf("%v: shareHint holds, mayNameShare does not", n.Attr)
		}
		if !mayNameShare(n) {
			passed++
		}
	}
	if passed == 0 {
		t.Fatal("the prefilter never passed over an element")
	}
	for _, v := range []string{"entry", "social-links", "post"} {
		if mayHoldShare(v) {
			t.Errorf("mayHoldShare(%q) = true", v)
		}
	}
	for _, v := range []string{"share", "SHARE-box", "x Share", "é"} {
		if !mayHoldShare(v) {
			t.Errorf("mayHoldShare(%q) = false", v)
		}
	}
}

// TestKindsMemo: dropBoilerplate's memo of class and id values gives
// classKinds's families on generated values, past its size and length
// limits and on values read again.
func TestKindsMemo(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	words := []string{"related", "Related", "posts", "byline", "share", "entry", "has-related", "author-bio",
		"relatedposts", "newsletter", "x", "-", " ", "_", "Meta", "post", "credit", "photo", "sponsor", "é"}
	memo := make(kindsMemo)
	for i := range 5000 {
		var b strings.Builder
		for k := rng.Intn(12); k >= 0; k-- {
			b.WriteString(words[rng.Intn(len(words))])
		}
		if i%7 == 0 {
			b.WriteString(strings.Repeat("y", kindsMemoLen)) // past kindsMemoLen
		}
		n := &html.Node{Type: html.ElementNode, Data: "div", Attr: []html.Attribute{{Key: "class", Val: b.String()}}}
		if rng.Intn(2) == 0 {
			n.Attr = append(n.Attr, html.Attribute{Key: "id", Val: words[rng.Intn(len(words))]})
		}
		want := kindsMemo(nil).classKinds(n)
		for range 2 {
			if got := memo.classKinds(n); got != want {
				t.Fatalf("%v: memo %v, direct %v", n.Attr, got, want)
			}
		}
	}
	if len(memo) != kindsMemoMax {
		t.Fatalf("memo holds %d values, want %d", len(memo), kindsMemoMax)
	}
}

// TestMatchFactsMemo: the matchFacts drop reads through readable.names
// are those of the old per-element reading (matchOf and the hint lists
// asked in turn) on generated class and id values (with and without an
// id), past the memo's size and length limits and on values read again.
func TestMatchFactsMemo(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	words := []string{"byline", "Author", "sidebar", "menu", "main", "content", "modal", "popup", "cookie",
		"hidden", "d-none", "sr-only", "visible-lg", "has-sidebar", "with-menu", "entry", "x", "-", " ", "_",
		"print", "hid", "é", "K", "footer", "Header", "\xff", "\u00a0", "is-hidden", "hidden-xs", "md:block", "İ"}
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
	r := &readable{}
	var seen uint8
	for range 5000 {
		class, id := gen(), ""
		if rng.Intn(2) == 0 {
			id = gen()
		}
		m := matchOf(class, id)
		var want uint8
		if m != "" && bylineHints.in(m) {
			want |= hintByline
		}
		if m != "" && unlikelyHints.in(m) && !maybeHints.in(m) {
			want |= hintUnlikely
		}
		if m != "" && popupHints.in(m) {
			want |= hintPopup
		}
		if m != "" && hideHints.in(m) && hidingClass(m) {
			want |= hintHide
		}
		if m != "" && pageRegion(m) {
			want |= hintRegion
		}
		seen |= want
		for range 2 {
			if f := r.matchFactsOf(class, id); f.hints != want {
				t.Fatalf("%q %q: memo %b, direct (%q) %b", class, id, f.hints, m, want)
			}
		}
		if f := readMatchFacts(class, id); f.hints != want {
			t.Fatalf("%q %q: read %b, direct (%q) %b", class, id, f.hints, m, want)
		}
	}
	if seen != hintByline|hintUnlikely|hintPopup|hintHide|hintRegion {
		t.Fatalf("generated values hold hints %b only", seen)
	}
	if len(r.names) != namesMax {
		t.Fatalf("memo holds %d values, want %d", len(r.names), namesMax)
	}
}

// TestLengthWithin: lengthWithin is textStats's length up to the limit
// and over the limit past it, on generated trees (scripts, long and
// multi-byte texts, white space runs).
func TestLengthWithin(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	texts := []string{"word", " ", "   \n ", "a, b", "€", "日本語のテキスト", strings.Repeat("x ", 300), "\u00a0", ""}
	var grow func(n *html.Node, depth int)
	grow = func(n *html.Node, depth int) {
		for k := rng.Intn(5); k > 0; k-- {
			if depth < 4 && rng.Intn(3) == 0 {
				e := &html.Node{Type: html.ElementNode, Data: "div"}
				if rng.Intn(6) == 0 {
					e.Data = "script"
					e.DataAtom = atom.Script
				}
				n.AppendChild(e)
				grow(e, depth+1)
				continue
			}
			n.AppendChild(&html.Node{Type: html.TextNode, Data: texts[rng.Intn(len(texts))]})
		}
	}
	for range 3000 {
		root := &html.Node{Type: html.ElementNode, Data: "div"}
		grow(root, 0)
		want := textStats(root, nil).length
		for _, limit := range []int{0, 10, 100, minArticleChars - 1} {
			got := lengthWithin(root, limit)
			if want <= limit && got != want || want > limit && got <= limit {
				t.Fatalf("limit %d: lengthWithin %d, textStats %d", limit, got, want)
			}
		}
	}
}

// TestOnlyElementsMarked: copyTree looks up the marks of elements only;
// on generated pages, every attempt marks elements only, and its marks
// are those of dropped and collapsed.
func TestOnlyElementsMarked(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for range 300 {
		root, _ := parseBody(t, randomShortPage(rng))
		r := &readable{body: findBody(root), title: "T", bodyLen: -1, bodyOver: -1}
		for _, flags := range []int{7, 6, 4, 0} {
			r.attempt(flags)
			for _, m := range []map[*html.Node]bool{r.dropped, r.collapsed} {
				for n := range m {
					if n.Type != html.ElementNode {
						t.Fatalf("flags %d: a node of type %d is marked", flags, n.Type)
					}
				}
			}
			// marks holds the marks of dropped and collapsed, and asP.
			for n, m := range r.marks {
				if n.Type != html.ElementNode {
					t.Fatalf("flags %d: a node of type %d is marked", flags, n.Type)
				}
				if m&markDropped != 0 != r.dropped[n] || m&markCollapsed != 0 != r.collapsed[n] {
					t.Fatalf("flags %d: marks %b, dropped %v, collapsed %v", flags, m, r.dropped[n], r.collapsed[n])
				}
			}
			for _, m := range []map[*html.Node]bool{r.dropped, r.collapsed} {
				for n := range m {
					if r.marks[n] == 0 {
						t.Fatalf("flags %d: %v not in marks", flags, n.Data)
					}
				}
			}
		}
	}
}
