// Tests that a function rewritten for speed gives the answers of its
// first, plainer version.

package content

import (
	"math/rand"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// stateModifierFold is stateModifier as it was written first: every
// prefix compared with strings.EqualFold.
func stateModifierFold(name string) bool {
	for _, p := range stateModifiers {
		if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
			return true
		}
	}
	return false
}

// withoutModifiersBytes is withoutModifiers' search for a modifier as it
// was written first: byte by byte.
func withoutModifiersBytes(class string) bool {
	for i := 0; i < len(class); i++ {
		if (i == 0 || class[i-1] == ' ') && strings.IndexByte("hHwWnNeEsS", class[i]) >= 0 && stateModifierFold(class[i:]) {
			return true
		}
	}
	return false
}

// TestStateModifierAsEqualFold checks the ASCII prefix test against
// strings.EqualFold on random class strings made of the prefixes' bytes
// in both cases, separators, white space and characters that fold to
// ASCII letters (the Kelvin sign, the long s).
func TestStateModifierAsEqualFold(t *testing.T) {
	parts := []string{"h", "H", "a", "A", "s", "S", "w", "W", "i", "I", "t", "T", "n", "N", "o", "O", "e", "E",
		"b", "l", "w", "-", "_", " ", "  ", "\t", "\u017f", "\u212a", "é", "x"}
	rng := rand.New(rand.NewSource(20))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := rng.Intn(12); n > 0; n-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		if got, want := stateModifier(s), stateModifierFold(s); got != want {
			t.Fatalf("stateModifier(%q) = %v, EqualFold says %v", s, got, want)
		}
		if got, want := withoutModifiers(s) != s, withoutModifiersBytes(s); got != want {
			t.Fatalf("withoutModifiers(%q) changed: %v, byte by byte found a modifier: %v", s, got, want)
		}
	}
	for _, s := range []string{"has-sidebar", "HAS_x", "post With-share", "show-more", "shows", "no", "enable-"} {
		if stateModifier(s) != stateModifierFold(s) {
			t.Errorf("stateModifier(%q) differs", s)
		}
	}
}

// pricesBytes is prices as it was written first: every byte tested.
func pricesBytes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		var sign int
		switch c := s[i]; {
		case c == '$':
			sign = 1
		case c == 0xC2 && i+1 < len(s) && (s[i+1] == 0xA3 || s[i+1] == 0xA5):
			sign = 2
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x82 && (s[i+2] == 0xAC || s[i+2] == 0xB9):
			sign = 3
		default:
			continue
		}
		after := i + sign
		for after < len(s) && s[after] == ' ' {
			after++
		}
		before := i - 1
		for before >= 0 && s[before] == ' ' {
			before--
		}
		if after < len(s) && s[after] >= '0' && s[after] <= '9' || before >= 0 && s[before] >= '0' && s[before] <= '9' {
			n++
		}
		i += sign - 1
	}
	return n
}

// TestPricesAsByteByByte checks prices against the byte-by-byte count on
// random texts of signs, their first bytes alone, digits, spaces,
// quotes and dashes (which share the euro's first byte).
func TestPricesAsByteByByte(t *testing.T) {
	parts := []string{"$", "£", "¥", "€", "₹", "\xC2", "\xE2", "\xE2\x82", "’", "–", "©", "1", "9", " ", "  ", "a", "US", "x"}
	rng := rand.New(rand.NewSource(20))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := rng.Intn(16); n > 0; n-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		if got, want := prices(s), pricesBytes(s); got != want {
			t.Fatalf("prices(%q) = %d, byte by byte %d", s, got, want)
		}
	}
}

// attrsOf lists the attributes of every element under n, in document
// order, but the h1 mark.
func attrsOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			b.WriteString("<" + n.Data)
			for _, a := range n.Attr {
				if a.Key != h1Mark {
					b.WriteString(" " + a.Key + "=" + a.Val)
				}
			}
			b.WriteString(">")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// TestPageAttributesUntilChoice checks that the page's attributes are
// as parsed and scanned until the pipeline has chosen its main content:
// the readability pass's copies share them (copyTree), so a change in
// place would reach the page, and the later attempts, trafilatura and
// the selector read it. Then the choice's own changes (absolutize)
// leave the whole pipeline's output as before.
func TestPageAttributesUntilChoice(t *testing.T) {
	page := `<html><head><title>Trail shoes</title></head><body>
<div class="wrap Main"><h1 class="title">Trail shoes</h1>
<div class="Intro box" id="lead"><p class="lede">` + strings.Repeat("A short line of words here, and more. ", 4) + `</p></div>
<div class="author-bio"><p class="x">By someone</p></div>
<p><a href="/shoes?a=1" class="more">Shoes</a> <img data-src="/p.jpg" src="" alt="shoe"></p>
<table><tr><td class="num">1</td><td>2</td></tr></table>
</div><div class="side"><a href="#top">Top</a></div></body></html>`
	for _, short := range []bool{false, true} {
		p := page
		if !short {
			p = strings.Replace(page, `<p><a href`, `<p>`+strings.Repeat("Long prose of the article goes on here, line after line. ", 20)+`</p><p><a href`, 1)
		}
		root, _ := parseBody(t, p)
		base, _ := url.Parse("https://example.com/a/b")
		s := scan(root, base, false)
		before := attrsOf(root)
		var facts extractFacts
		art, _ := mainContent(root, s.base, s.sig, s.title, &facts)
		probs := [len(PageTypes)]float64{}
		probs[typeIndex(TypeCollection)] = 1
		var runs itemRuns
		k := typedContent(root, art, TypeCollection, probs, &runs)
		_ = selectContent(root, art, k, s.sig, facts.readableOK, probs, &runs, nil)
		if after := attrsOf(root); after != before {
			t.Errorf("short %v: the page's attributes changed before the choice:\n%s\n%s", short, before, after)
		}
	}
}

// TestItemKeyAsString checks that two children share an itemKey exactly
// when the strings tag + "." + class, the keys itemRun used first, are
// equal, tags with dots included.
func TestItemKeyAsString(t *testing.T) {
	parts := []string{"div", "li", "a", ".", "x", "x.", ".y", ""}
	rng := rand.New(rand.NewSource(20))
	pick := func() string {
		var b strings.Builder
		for n := rng.Intn(4); n > 0; n-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		return b.String()
	}
	for i := 0; i < 100000; i++ {
		t1, c1, t2, c2 := pick(), pick(), pick(), pick()
		if got, want := itemKeyOf(t1, c1) == itemKeyOf(t2, c2), t1+"."+c1 == t2+"."+c2; got != want {
			t.Fatalf("(%q, %q) and (%q, %q): same key %v, same string %v", t1, c1, t2, c2, got, want)
		}
	}
}

// TestCollapseAsJoinFields checks collapse against strings.Join of
// strings.Fields on random texts of words, ASCII and Unicode spaces and
// broken characters.
func TestCollapseAsJoinFields(t *testing.T) {
	parts := []string{"a", "word", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\u3000", "é", "\xe2", "\x80", "\x85", "x y"}
	rng := rand.New(rand.NewSource(20))
	for i := 0; i < 100000; i++ {
		var b strings.Builder
		for n := rng.Intn(10); n > 0; n-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		if got, want := collapse(s), strings.Join(strings.Fields(strings.TrimSpace(s)), " "); got != want {
			t.Fatalf("collapse(%q) = %q, want %q", s, got, want)
		}
	}
}
