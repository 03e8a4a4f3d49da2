package content

import (
	"maps"
	"math/rand"
	"path"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// containsFoldByteByByte is containsFold as it was: every place of s
// tried in turn.
func containsFoldByteByByte(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// TestContainsFoldAsByteByByte: containsFold, which jumps between the
// places of sub's first letter, answers as the byte-by-byte search on
// random style values.
func TestContainsFoldAsByteByByte(t *testing.T) {
	pieces := []string{"n", "N", "o", "O", "e", "E", "h", "H", "i", "d", "D", "en", "none", "NONE", "nOnE", "hidden", "HIDDEN",
		"display:", " ", ";", "\u00ff", "\x0e", "N\x0fNE", "non", "hidde", "n\x00ne"}
	rng := rand.New(rand.NewSource(7))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		for _, sub := range []string{"none", "hidden", "n"} {
			if got, want := containsFold(s, sub), containsFoldByteByByte(s, sub); got != want {
				t.Fatalf("containsFold(%q, %q) = %v, want %v", s, sub, got, want)
			}
		}
	}
}

// docLinkIndexAny is docLink as it was, cut at the first '?' or '#' by
// strings.IndexAny.
func docLinkIndexAny(href string) bool {
	href = strings.TrimSpace(href)
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		href = href[:i]
	}
	ext := path.Ext(href)
	if len(ext) < 3 || len(ext) > 5 {
		return false
	}
	return docExtensions[strings.ToLower(ext)]
}

// TestDocLinkAsIndexAny: docLink cut by two IndexByte calls answers as
// the cut at the first of '?' and '#'.
func TestDocLinkAsIndexAny(t *testing.T) {
	pieces := []string{"/", "a", ".", ".pdf", ".PDF", ".xlsx", "?", "#", "?x=.pdf", "#.doc", " ", "x.csv", ".zip?", "#a?b.pdf"}
	rng := rand.New(rand.NewSource(7))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		h := b.String()
		if got, want := docLink(h), docLinkIndexAny(h); got != want {
			t.Fatalf("docLink(%q) = %v, want %v", h, got, want)
		}
	}
}

// newArtBagWhole is newArtBag as it was: the whole text lower-cased,
// then split.
func newArtBagWhole(text string) *artBag {
	b := &artBag{index: make(map[string]int32)}
	for w := range strings.FieldsSeq(strings.ToLower(text)) {
		i, ok := b.index[w]
		if !ok {
			i = int32(len(b.count))
			b.index[w] = i
			b.count = append(b.count, 0)
		}
		b.count[i]++
		b.n++
	}
	b.rem = make([]int32, len(b.count))
	return b
}

// TestArtBagWordByWord: the article's bag lower-cased word by word has
// the words, positions and counts of the bag of the lower-cased text.
func TestArtBagWordByWord(t *testing.T) {
	pieces := []string{"a", "A", "b", "Straße", "STRASSE", "ẞ", "İ", "i", "\u212a", "k", "K", "É", "é", " ", "\u00a0", "\u2028",
		"\xff", "\xe2\x80", "\xa8", "\t", "Word", "WORD", "word"}
	rng := rand.New(rand.NewSource(7))
	for range 50000 {
		var b strings.Builder
		for range rng.Intn(16) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		got, want := newArtBag(s), newArtBagWhole(s)
		if got.n != want.n || !slices.Equal(got.count, want.count) || !maps.Equal(got.index, want.index) {
			t.Fatalf("newArtBag(%q): %v %v %d, want %v %v %d", s, got.index, got.count, got.n, want.index, want.count, want.n)
		}
	}
}

// TestAdOrLoadingAsConcat: the test without concatenations answers as
// the comparisons with "w…" and "w..." did.
func TestAdOrLoadingAsConcat(t *testing.T) {
	old := func(t string) bool {
		t = strings.ToLower(t)
		switch t {
		case "ad", "advertising", "advertisement", "pub", "publicité", "werb", "werbung", "广告", "реклама", "anuncio":
			return true
		}
		for _, w := range []string{"loading", "正在加载", "загрузка", "chargement", "cargando"} {
			if t == w || t == w+"…" || t == w+"..." {
				return true
			}
		}
		return false
	}
	pieces := []string{"loading", "Loading", "LOADING", "…", "...", "..", ".", "正在加载", "загрузка", "ЗАГРУЗКА", "chargement", "cargando", "ad", "x", " "}
	rng := rand.New(rand.NewSource(7))
	for range 50000 {
		var b strings.Builder
		for range rng.Intn(4) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, want := adOrLoading(s), old(s); got != want {
			t.Fatalf("adOrLoading(%q) = %v, want %v", s, got, want)
		}
	}
}

// sharedByMaps is shared as it was: both texts lower-cased whole, the
// words of b counted in a map.
func sharedByMaps(a, b string) float64 {
	have := make(map[string]int)
	for w := range strings.FieldsSeq(strings.ToLower(b)) {
		have[w]++
	}
	n, in := 0, 0
	for w := range strings.FieldsSeq(strings.ToLower(a)) {
		n++
		if have[w] > 0 {
			have[w]--
			in++
		}
	}
	if n == 0 {
		return 1
	}
	return float64(in) / float64(n)
}

// TestSharedAsByMaps: shared through the article bag gives the figures
// of the map of lower-cased words, in both directions.
func TestSharedAsByMaps(t *testing.T) {
	pieces := []string{"a", "A", "b", "Straße", "STRASSE", "ẞ", "İ", "i", "\u212a", "k", "K", "É", "é", " ", "\u00a0", "\u2028",
		"\xff", "\xe2\x80", "\xa8", "\t", "Word", "WORD", "word", "\ufffd"}
	rng := rand.New(rand.NewSource(8))
	for range 50000 {
		var x, y strings.Builder
		for range rng.Intn(12) {
			x.WriteString(pieces[rng.Intn(len(pieces))])
		}
		for range rng.Intn(12) {
			y.WriteString(pieces[rng.Intn(len(pieces))])
		}
		a, b := x.String(), y.String()
		if got, want := shared(a, b), sharedByMaps(a, b); got != want {
			t.Fatalf("shared(%q, %q) = %v, want %v", a, b, got, want)
		}
		bag := newArtBag(b)
		in, _ := bag.overlap(a)
		if got, want := shareOf(in, bag.n), sharedByMaps(b, a); got != want {
			t.Fatalf("%q in %q from one bag: %v, want %v", b, a, got, want)
		}
	}
}

// TestContainsLowerAsToLower: containsLower answers as Contains of the
// lower-cased text, for ASCII text and other.
func TestContainsLowerAsToLower(t *testing.T) {
	pieces := []string{"pager", "PAGER", "Pagination", "PAGİNATION", "pagi", "nation", "page", "r", "R", "\u212a", "İ", "\xff", "-", " ", "é"}
	rng := rand.New(rand.NewSource(9))
	for range 100000 {
		var b strings.Builder
		for range rng.Intn(6) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		for _, sub := range []string{"pager", "pagination", "ki"} {
			if got, want := containsLower(s, sub), strings.Contains(strings.ToLower(s), sub); got != want {
				t.Fatalf("containsLower(%q, %q) = %v, want %v", s, sub, got, want)
			}
		}
	}
}

// TestHasTokenAsFields: hasToken answers as a search of the fields.
func TestHasTokenAsFields(t *testing.T) {
	pieces := []string{"post", "posts", "post_edit", "message", "a", " ", "\t", "\n", "\v", "\f", "\r", "\u00a0", "\u0085", "\u2028",
		"\xc2", "\xa0", "\xff", "-", "_", "é"}
	rng := rand.New(rand.NewSource(10))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		list := b.String()
		for _, tok := range []string{"post", "post_edit", "a", "", "a b", "é", "\u00a0"} {
			if got, want := hasToken(list, tok), hasTokenFields(list, tok); got != want {
				t.Fatalf("hasToken(%q, %q) = %v, want %v", list, tok, got, want)
			}
		}
	}
}

// h1RegionRootByMap is h1RegionRoot as it was: the path to the <h1> in
// a map, every text counted anew.
func h1RegionRootByMap(body *html.Node) *html.Node {
	var h1 *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil && h1 == nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				if c.DataAtom == atom.H1 {
					h1 = c
					return
				}
				find(c)
			}
		}
	}
	find(body)
	if h1 == nil {
		return nil
	}
	onPath := make(map[*html.Node]bool)
	for p := h1; p != nil && p != body; p = p.Parent {
		onPath[p] = true
	}
	plain := make(map[*html.Node]int)
	var count func(n *html.Node, inLink bool) int
	count = func(n *html.Node, inLink bool) int {
		k := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if !inLink {
					k += countWords(c.Data)
				}
			case html.ElementNode:
				if c.DataAtom != atom.Script && c.DataAtom != atom.Style {
					k += count(c, inLink || c.DataAtom == atom.A)
				}
			}
		}
		if onPath[n] {
			plain[n] = k
		}
		return k
	}
	total := count(body, false)
	region := body
	for p := h1; p != nil && p != body; p = p.Parent {
		if 2*plain[p] >= total {
			region = p
			break
		}
	}
	return region
}

// TestH1RegionRootAsByMap: h1RegionRoot, with scan's counts or without,
// finds the region the map-based walk found, on random pages.
func TestH1RegionRootAsByMap(t *testing.T) {
	pieces := []string{"<div>", "</div>", "<section>", "</section>", "<h1>", "</h1>", "<a href=/x>", "</a>", "<p>", "</p>",
		"one two", "a longer text of some words, more than twenty-four bytes", "<script>x y z</script>", "<style>p{}</style>",
		"<h1>Title words</h1>", " ", "\u4e2d\u6587\u5b57"}
	rng := rand.New(rand.NewSource(11))
	for range 3000 {
		var b strings.Builder
		b.WriteString("<body>")
		for range 1 + rng.Intn(40) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		_, body := parseBody(t, b.String())
		want := h1RegionRootByMap(body)
		if got := h1RegionRoot(body, nil); got != want {
			t.Fatalf("%s: h1RegionRoot without counts differs", b.String())
		}
		var counts textCounts
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode && rng.Intn(4) > 0 { // some texts missing
					counts.list = append(counts.list, textCount{c.Data, countWords(c.Data)})
				}
				walk(c)
			}
		}
		walk(body)
		if got := h1RegionRoot(body, &counts); got != want {
			t.Fatalf("%s: h1RegionRoot with counts differs", b.String())
		}
	}
}

// TestHoldsPostAsContains: holdsPost answers as strings.Contains.
func TestHoldsPostAsContains(t *testing.T) {
	pieces := []string{"p", "o", "s", "t", "post", "pos", "ost", "ppost", " ", "-", "P", "é"}
	rng := rand.New(rand.NewSource(12))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(10) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		v := b.String()
		if got, want := holdsPost(v), strings.Contains(v, "post"); got != want {
			t.Fatalf("holdsPost(%q) = %v, want %v", v, got, want)
		}
	}
}
