package content

import (
	"math/rand"
	"testing"

	"golang.org/x/net/html"
)

// TestTypeAttrsAsAttr: the type walk's one pass over an element's
// attributes reads what attr reads for each key: the first of that key
// without a namespace.
func TestTypeAttrsAsAttr(t *testing.T) {
	keys := []string{"class", "id", "itemtype", "href", "Class", "ids"}
	vals := []string{"", "a", "post card", "b"}
	r := rand.New(rand.NewSource(3))
	for range 5000 {
		n := &html.Node{Type: html.ElementNode, Data: "div"}
		for range r.Intn(6) {
			a := html.Attribute{Key: keys[r.Intn(len(keys))], Val: vals[r.Intn(len(vals))]}
			if r.Intn(5) == 0 {
				a.Namespace = "xlink"
			}
			n.Attr = append(n.Attr, a)
		}
		got := typeAttrsOf(n)
		want := typeAttrs{class: attr(n, "class"), id: attr(n, "id"), itemtype: attr(n, "itemtype")}
		if got != want {
			t.Fatalf("typeAttrsOf(%v) = %+v, want %+v", n.Attr, got, want)
		}
	}
}

// TestPricesInAsPrices: the type walk asks dollarOrHigh once per text and
// pricesIn after it; the two together are prices.
func TestPricesInAsPrices(t *testing.T) {
	for _, s := range []string{"", "abc", "$5", "5 $", "€ 10", "£3 and ¥4", "naïve", "₹ 100 $ x", "$", "\xe2\x82"} {
		got := 0
		if dollarOrHigh(s) {
			got = pricesIn(s)
		}
		if want := prices(s); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
}

// TestClassWordAsLowered: classWord, which passes a word over by its
// first two letters before lower-casing it, counts the words whose
// lower case is a class hint, in any case, each family once.
func TestClassWordAsLowered(t *testing.T) {
	words := []string{"Cart", "CART", "cArt", "price", "PRICE", "Pr", "x", "ToC", "toc", "sidebar", "SIDEBAR", "zz", "cards", "Card", "aVeryLongWordOverSixteen", "é", "c"}
	r := rand.New(rand.NewSource(4))
	for range 2000 {
		w := &typeWalk{f: new(typeFeatures)}
		var want typeFeatures
		var seen, wantSeen uint64
		for range r.Intn(6) {
			word := words[r.Intn(len(words))]
			w.classWordCount(word, &seen)
			lower := []byte(word)
			for i := range lower {
				lower[i] |= 0x20
			}
			if i, ok := classHints[string(lower)]; ok && len(word) >= 2 && len(word) <= 16 {
				if bit := uint64(1) << uint(i-fClassCart); wantSeen&bit == 0 {
					wantSeen |= bit
					want[i]++
				}
			}
		}
		if *w.f != want {
			t.Fatalf("classWord counted %v, want %v", *w.f, want)
		}
	}
}
