package content

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// articleOf parses body and returns a detached <div> holding its
// children, as the readability pass hands prepare its article.
func articleOf(t *testing.T, body string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<html><body>" + body + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	b := findBody(doc)
	art := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for c := b.FirstChild; c != nil; {
		next := c.NextSibling
		b.RemoveChild(c)
		art.AppendChild(c)
		c = next
	}
	return art
}

func countArticles(n *html.Node) int {
	k := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Article {
			k++
		}
		k += countArticles(c)
	}
	return k
}

func teasers(k int) string {
	var b strings.Builder
	for i := range k {
		fmt.Fprintf(&b, `<article class="teaser2"><h3><a href="/r/%d">Restaurant %d</a></h3><p>Bib Gourmand | Chinatown Korean $$</p></article>`, i, i)
	}
	return b.String()
}

// An article that is a list of teasers (a guide's restaurants) keeps
// them; without the rule each goes as another post's teaser.
func TestTeaserListKept(t *testing.T) {
	art := articleOf(t, `<section><h2>The Bib Gourmand list</h2>`+teasers(12)+`</section>`)
	dropBoilerplate(art)
	if got := countArticles(art); got != 12 {
		t.Errorf("%d of 12 teasers of a list kept", got)
	}

	// Teasers beside an article's own text still go: they hold under
	// half of it.
	prose := strings.Repeat("<p>"+strings.Repeat("The article's own sentence, long enough to count. ", 20)+"</p>", 6)
	art = articleOf(t, `<div>`+prose+`</div><section>`+teasers(12)+`</section>`)
	dropBoilerplate(art)
	if got := countArticles(art); got != 0 {
		t.Errorf("%d teasers beside prose kept", got)
	}

	// Fewer than minTeasers teasers are related posts, however little
	// else the article holds.
	art = articleOf(t, `<section>`+teasers(minTeasers-1)+`</section>`)
	dropBoilerplate(art)
	if got := countArticles(art); got != 0 {
		t.Errorf("%d of %d teasers kept", got, minTeasers-1)
	}

	// Teasers that are not siblings of one class are no run.
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, `<li><article class="t%d"><h3><a href="/r/%d">Story %d</a></h3></article></li>`, i, i, i)
	}
	art = articleOf(t, `<ol>`+b.String()+`</ol>`)
	dropBoilerplate(art)
	if got := countArticles(art); got != 0 {
		t.Errorf("%d scattered teasers kept", got)
	}
}

// runTeasers reads a parent of 100,000 teasers, and teasers nested
// 10,000 deep, in linear time.
func TestRunTeasersBounded(t *testing.T) {
	art := articleOf(t, `<section>`+teasers(100000)+`</section>`)
	var length, count int
	d := spent(func() { length, count = runTeasers(art) })
	if count != 100000 || length == 0 {
		t.Errorf("runTeasers: %d teasers, length %d", count, length)
	}
	// Built by hand: the parser stops at 512 open elements.
	deep := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	n := deep
	for range 10000 {
		a := &html.Node{Type: html.ElementNode, Data: "article", DataAtom: atom.Article, Attr: []html.Attribute{{Key: "class", Val: "a"}}}
		n.AppendChild(a)
		n = a
	}
	d += spent(func() { _, count = runTeasers(deep) })
	if count != 0 {
		t.Errorf("nested teasers counted as a run: %d", count)
	}
	if d > 5*time.Second {
		t.Errorf("runTeasers took %v of CPU", d)
	}
}

// CleanTrace is told of the cleaning's removals, with their reasons,
// and of the article returned.
func TestCleanTrace(t *testing.T) {
	prose := strings.Repeat("<p>"+strings.Repeat("A sentence of the story, with a comma, and more words. ", 12)+"</p>", 5)
	page := `<html><body><article><h1>Story</h1>` + prose +
		`<div><iframe src="https://ads.example.net/slot"></iframe><p>Short.</p></div>` +
		`<form><input name="q"><button>Go</button></form>` + prose + `</article></body></html>`
	var whys []string
	returned := 0
	CleanTrace = func(art *html.Node, why string, n *html.Node) {
		if why == "returned" {
			returned++
			return
		}
		whys = append(whys, why)
	}
	defer func() { CleanTrace = nil }()
	if _, err := HTML([]byte(page), "https://example.com/story", Options{OnlyMainContent: true}); err != nil {
		t.Fatal(err)
	}
	if returned != 1 {
		t.Errorf("returned told %d times", returned)
	}
	all := strings.Join(whys, "; ")
	for _, want := range []string{"nonContent iframe", "form input>p/3"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among %q", want, all)
		}
	}
}
