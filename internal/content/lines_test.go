package content

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// labelLineFull is labelLine without its test of the first two bytes.
func labelLineFull(n *html.Node) bool {
	var head [24]byte
	h := firstText(n, head[:0])
	if len(h) == 0 {
		return false
	}
	t := labelStartTrim.trimLeft(h)
	if len(t) == 0 {
		return false
	}
	maybe := false
	for _, p := range labelStarts[t[0]] {
		if bytes.HasPrefix(t, p) {
			maybe = true
			break
		}
	}
	if !maybe {
		return false
	}
	l := textWithin(n, 100)
	if l <= 0 || (isPhrasing(n) && !alone(n, l)) {
		return false
	}
	full := strings.ToLower(collapse(nodeText(n)))
	if adLabels[strings.Trim(full, " -–—:|[]()*")] {
		return l <= 30
	}
	full = strings.TrimLeft(full, "([ ")
	if inCaption(n) || hasMedia(n) {
		return false
	}
	for _, p := range creditPrefixes {
		if strings.HasPrefix(full, p) {
			return true
		}
	}
	return false
}

// relatedLabelFull is relatedLabel without its test of the first two
// bytes.
func relatedLabelFull(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.P, atom.Div, atom.Strong, atom.B,
		atom.Span, atom.Header, atom.Dt, atom.Li:
	default:
		return false
	}
	if !relatedStartFull(n) {
		return false
	}
	l := textWithin(n, 80)
	if l <= 0 || (isPhrasing(n) && !alone(n, l) && !ownLine(n)) {
		return false
	}
	full := strings.ToLower(collapse(nodeText(n)))
	return relatedLabels[strings.Trim(full, labelTrim)]
}

// relatedStartFull is relatedStart without its test of the first two
// bytes.
func relatedStartFull(n *html.Node) bool {
	var head [32]byte
	w := labelTrimSet.trimLeft(firstText(n, head[:0]))
	if i := firstWordEnd(w); i >= 0 {
		w = w[:i]
	}
	return relatedFirstWords[string(w)] || hasNonASCII(w) && relatedFirstWords[strings.ToLower(string(w))]
}

// TestFirstTwoBytes: labelLine and relatedLabel, which pass over most
// elements by the first two bytes of their text (firstTwo), tell every
// element of random articles as they do reading the text's start
// (firstText): texts that start with white space of every kind, with
// labels and credits in any case, with one letter, split over elements
// and scripts.
func TestFirstTwoBytes(t *testing.T) {
	pieces := []string{" ", "\n\t", "\v", "\f\r", "\u00a0", "\u0085", "\u2003", "A", "a", "I", "o", "à ", "x",
		"Advertisement", "ADVERTISEMENT", "ad", "Ad:", "Anzeige", "Photo: AP", "PHOTO BY x", "©", "© 2024",
		"(c) x", "(Source: dpa)", "- Image credit", "* Foto:", "Related", "related stories", "READ MORE",
		"Read more:", "You may also like", "Mehr zum Thema", "À lire aussi", "« Lire aussi »", "Lee también",
		"… more", "\"Related\"", "Te recomendamos", "i più letti", "o autorze", "Über den Autor", "über den autor",
		"Most read", "Don't miss", "Keep reading.", "The text", "words, more words", "İ", "K", "é",
		"\xff", ":", "|", "[", "(", "*", "re", "R", "e", "te", "Lo", "?", "!", ".", "pos", "Rel", "ated",
		"<span>", "</span>", "<b>", "</b>", "<a href=\"/x\">", "</a>", "<script>Related</script>", "<!-- c -->",
		"<img src=\"i.png\">", "<br>", "<p>", "</p>", "<div>", "</div>", "<h2>", "</h2>", "<strong>", "</strong>",
		"<figure><figcaption>", "</figcaption></figure>", "<li>", "</li>", "<dt>", "</dt>", "<header>", "</header>"}
	rng := rand.New(rand.NewSource(7))
	checked, passed := 0, 0
	for range 20000 {
		var b strings.Builder
		b.WriteString("<html><body><div>")
		for k := rng.Intn(8); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b.WriteString("</div></body></html>")
		_, body := parseBody(t, b.String())
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type != html.ElementNode {
					continue
				}
				checked++
				if got, want := labelLine(c), labelLineFull(c); got != want {
					t.Fatalf("%s: labelLine %v, reading the text %v", renderString(c), got, want)
				}
				if got, want := relatedLabel(c), relatedLabelFull(c); got != want {
					t.Fatalf("%s: relatedLabel %v, reading the text %v", renderString(c), got, want)
				}
				if got, want := relatedStart(c), relatedStartFull(c); got != want {
					t.Fatalf("%s: relatedStart %v, reading the text %v", renderString(c), got, want)
				}
				if _, _, _, k := firstTwo(c); k >= twoFound {
					passed++
				}
				walk(c)
			}
		}
		walk(body)
	}
	if passed == 0 || passed == checked {
		t.Fatalf("firstTwo read %d of %d elements", passed, checked)
	}
	// Elements the two bytes tell; a label and a credit they do not.
	for page, want := range map[string][2]bool{
		"<p>The text of a paragraph.</p>":                         {false, false},
		"<p>  \n Related stories</p>":                             {false, true},
		"<p><span></span> <b>Photo</b>: AP</p>":                   {true, false},
		"<h2>You might also like</h2>":                            {false, true},
		"<p>\u00a0Advertisement</p>":                              {true, false},
		"<p><script>x</script>Advertisement</p>":                  {true, false},
		"<p>Advertisement, a paragraph about it, long enough</p>": {false, false},
		"<p>a. lire aussi</p>":                                    {false, false},
		"<p>PostgreSQL</p>":                                       {false, false},
	} {
		_, body := parseBody(t, "<html><body>"+page+"</body></html>")
		n := body.FirstChild
		if labelLine(n) != want[0] || relatedLabel(n) != want[1] {
			t.Errorf("%s: labelLine %v relatedLabel %v, want %v", page, labelLine(n), relatedLabel(n), want)
		}
	}
}
