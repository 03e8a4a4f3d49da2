package content

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// allAttempts is readableContent without its skipping of attempts that
// give the article before them again: every attempt runs.
func allAttempts(root *html.Node, title string, facts *extractFacts) (*html.Node, bool) {
	r := &readable{body: findBody(root), title: title, bodyLen: -1, bodyOver: -1}
	var best *html.Node
	bestLen := 0
	for _, flags := range []int{7, 6, 4, 0} {
		art := r.attempt(flags)
		n := textStats(art, nil).length
		if n >= minArticleChars || n > bestLen {
			facts.note(r)
		}
		if n >= minArticleChars {
			return art, true
		}
		if n > bestLen {
			best, bestLen = art, n
		}
	}
	return best, false
}

// randomShortPage writes a random short page (no attempt reaches
// minArticleChars): menus, navs, lists of links, forms and a few
// sentences, some blocks named as unlikely candidates.
func randomShortPage(rng *rand.Rand) string {
	blocks := []string{
		`<nav><a href="/a">Home</a> <a href="/b">About</a></nav>`,
		`<div class="sidebar"><p>Side words, a few of them, here.</p></div>`,
		`<div class="content"><p>A sentence of the page, with a comma, and a full stop.</p></div>`,
		`<ul><li><a href="/x">One link</a></li><li><a href="/y">Another link</a></li></ul>`,
		`<form><input name="q"><button>Search</button></form>`,
		`<div><p>Short text.</p><div><a href="/z">More</a></div></div>`,
		`<table><tr><td><a href="/p">Prev</a></td><td><a href="/n">Next</a></td></tr></table>`,
		`<p>Another paragraph that says a little more about what the page holds.</p>`,
		`<div class="comment"><p>A comment, short.</p></div>`,
		`<div class="sidebar"><p>Words of the sidebar, which says more than the rest of the page, with commas, clauses and more words.</p></div>`,
	}
	var b strings.Builder
	b.WriteString("<html><head><title>T</title></head><body>")
	for k := 1 + rng.Intn(6); k > 0; k-- {
		b.WriteString(blocks[rng.Intn(len(blocks))])
	}
	b.WriteString("</body></html>")
	return b.String()
}

// TestSkippedAttemptsChangeNothing: readableContent, which skips an
// attempt whose flag the one before never acted on, returns what every
// attempt run in turn returns, on random short pages (all four attempts
// matter there), and skips on some of them.
func TestSkippedAttemptsChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	skipped := 0
	for range 300 {
		page := randomShortPage(rng)
		root, _ := parseBody(t, page)
		var f1, f2 extractFacts
		a1, ok1 := readableContent(root, nil, "T", &f1)
		a2, ok2 := allAttempts(root, "T", &f2)
		if ok1 != ok2 || f1 != f2 || renderString(a1) != renderString(a2) {
			t.Fatalf("%s\nskipping: %v %+v %s\nall: %v %+v %s", page, ok1, f1, renderString(a1), ok2, f2, renderString(a2))
		}
		r := &readable{body: findBody(root), title: "T", bodyLen: -1, bodyOver: -1}
		r.attempt(7)
		if !r.unlikely {
			skipped++
		}
		r.attempt(4)
		if !r.cleaned {
			skipped++
		}
	}
	if skipped == 0 {
		t.Error("no attempt skipped: the test tries nothing")
	}
}

// TestAttemptNotesWhatItActedOn: the first attempt on a page without
// unlikely candidates notes none, and one that drops a <nav> notes it;
// the cleaning notes a removed form.
func TestAttemptNotesWhatItActedOn(t *testing.T) {
	for _, c := range []struct {
		page              string
		unlikely, cleaned bool
	}{
		{`<div><p>Plain words, a sentence.</p></div>`, false, false},
		{`<nav><a href="/">Home</a></nav><div><p>Plain words, a sentence.</p></div>`, true, false},
		{`<div><p>Plain words, a sentence.</p><form><input></form></div>`, false, true},
	} {
		root, _ := parseBody(t, "<html><body>"+c.page+"</body></html>")
		r := &readable{body: findBody(root), bodyLen: -1, bodyOver: -1}
		r.attempt(flagStripUnlikely | flagWeightClasses | flagCleanConditionally)
		if r.unlikely != c.unlikely || r.cleaned != c.cleaned {
			t.Errorf("%s: unlikely %v cleaned %v, want %v %v", c.page, r.unlikely, r.cleaned, c.unlikely, c.cleaned)
		}
	}
}

func renderString(n *html.Node) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return fmt.Sprint(err)
	}
	return b.String()
}

// TestBodyTextIsTextStats: what visit sums for the body is textStats of
// the body without the dropped nodes, to the bit, on random pages with
// links of every weight, blank texts and dropped blocks.
func TestBodyTextIsTextStats(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	pieces := []string{"word", " ", "two words, ", "\n ", `<a href="/x">`, `<a href="#top">`, `<a href="/f.pdf">`, "</a>",
		"<p>", "</p>", "<div>", "</div>", `<nav>`, `</nav>`, `<div class="sidebar">`, "<span>", "</span>", "<br>", "é è"}
	for range 500 {
		var b strings.Builder
		b.WriteString("<html><body>")
		for k := rng.Intn(30); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b.WriteString("</body></html>")
		root, _ := parseBody(t, b.String())
		r := &readable{body: findBody(root), bodyLen: -1, bodyOver: -1}
		for _, flags := range []int{7, 0} {
			r.attempt(flags)
			// attempt's copy leaves the page as it was; visit again for
			// the dropped set of this attempt.
			want := textStats(r.body, r.dropped)
			if r.bodyText.length != want.length || r.bodyText.linkLen != want.linkLen {
				t.Fatalf("%s: visit %+v, textStats %+v", b.String(), r.bodyText, want)
			}
		}
	}
}

// TestCTAHintsHoldBoth: the one reading ctaParagraph makes first finds
// every social network name and every subscribe stem, alone in a text
// or inside one; a paragraph without them is passed over.
func TestCTAHintsHoldBoth(t *testing.T) {
	for _, w := range append(append([]string(nil), socialNames...), subscribeStemList...) {
		for _, s := range []string{w, "see " + w + " now"} {
			if !ctaHints.in(s) || (!socialHints.in(s) && !subscribeStems.in(s)) {
				t.Errorf("%q: not found", s)
			}
		}
	}
	if ctaHints.in("an ordinary sentence, with nothing to sell") {
		t.Error("an ordinary sentence holds a hint")
	}
	root, _ := parseBody(t, `<html><body><p>Follow us on Twitter and Instagram for more news.</p><p>An ordinary paragraph with nothing to sell.</p></body></html>`)
	var got []bool
	walkElements(root, func(n *html.Node) {
		if n.DataAtom == atom.P {
			got = append(got, ctaParagraph(n))
		}
	})
	if fmt.Sprint(got) != "[true false]" {
		t.Errorf("ctaParagraph %v, want [true false]", got)
	}
}

// TestCopyOverManyChunks: an article of more nodes than one chunk of
// newNode holds is copied whole, its nodes distinct.
func TestCopyOverManyChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><div class=\"content\">")
	for i := range 3 * nodeChunk {
		fmt.Fprintf(&b, "<p>Paragraph %d of the story, with a comma, and some more words to score.</p>", i)
	}
	b.WriteString("</div></body></html>")
	root, _ := parseBody(t, b.String())
	art, ok := readableContent(root, nil, "", nil)
	if !ok {
		t.Fatal("no article")
	}
	seen := map[*html.Node]bool{}
	n := 0
	walkElements(art, func(e *html.Node) {
		if seen[e] {
			t.Fatal("a node twice")
		}
		seen[e] = true
		if e.DataAtom == atom.P {
			n++
		}
	})
	if n != 3*nodeChunk || !strings.Contains(textOf(art), fmt.Sprintf("Paragraph %d of", 3*nodeChunk-1)) {
		t.Errorf("%d paragraphs copied, want %d", n, 3*nodeChunk)
	}
}
