package content

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// tailPage is a product's chosen content: its title and description,
// then a brand story and a run of cards to other products.
const tailPage = `<div id="content"><div class="product">
<h1>Walnut desk lamp</h1>
<p>A desk lamp turned from one piece of walnut, with a linen shade and a brass switch on the cord.</p>
<p>The bulb holder takes E27 bulbs up to 40 W; the cord is two metres long.</p>
<section class="brand"><h2>Our story</h2><p>We started in a garage in 2009 and still turn every piece by hand in our workshop.</p></section>
<div class="more"><h2>You may also like</h2><ul>` +
	`<li><a href="/p/1"><img src="1.jpg">Oak lamp</a></li><li><a href="/p/2"><img src="2.jpg">Ash lamp</a></li>` +
	`<li><a href="/p/3"><img src="3.jpg">Beech lamp</a></li><li><a href="/p/4"><img src="4.jpg">Elm lamp</a></li></ul></div>
</div></div>`

// productProbs is a page taken for a product.
var productProbs = [len(PageTypes)]float64{0.05, 0.01, 0.01, 0.85, 0.04, 0.02, 0.02}

func tailContent(t *testing.T, page string) *html.Node {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return findBody(root).FirstChild
}

// TestTailSegments: the content's one wrapper is opened, and its blocks
// are the boundaries' places, with the cards and the heading seen.
func TestTailSegments(t *testing.T) {
	n := tailContent(t, tailPage)
	segs := tailSegments(n)
	if len(segs) != 5 {
		var got []string
		for _, s := range segs {
			got = append(got, s.node.Data)
		}
		t.Fatalf("%d blocks, want 5 (h1, p, p, section, div): %v", len(segs), got)
	}
	if !segs[0].h1 || !segs[3].starts || segs[4].cards != 4 {
		t.Errorf("marks: h1 %v, heading %v, cards %d", segs[0].h1, segs[3].starts, segs[4].cards)
	}
	bs := tailBoundaries(segs, &productProbs, 200)
	if len(bs) != 4 {
		t.Fatalf("%d boundaries, want 4", len(bs))
	}
	last := bs[3]
	if last[ftSegCards] != 1 || last[ftHeading] != 1 || last[ftH1Before] != 1 || last[ftTypeProduct] != 0.85 {
		t.Errorf("the last boundary's features: %v", last)
	}
	if bs[2][ftLandmark] != 1 {
		t.Errorf("the section is not a landmark: %v", bs[2])
	}
}

// TestTailCut: with weights that favour a boundary before a run of
// cards after most of the text, the content ends there: the cards go,
// the description and the brand story stay. Without the rule (the
// committed model is off) nothing is cut.
func TestTailCut(t *testing.T) {
	saved := tailWeights
	defer func() { tailWeights = saved }()
	tailWeights = [numTailFeatures]float64{}
	tailWeights[ftBias] = -4
	tailWeights[ftSegCards] = 6
	tailWeights[ftBefore] = 2
	n := tailContent(t, tailPage)
	if !tailCut(n, &productProbs, 200) {
		t.Fatal("nothing was cut")
	}
	got := textOf(n)
	for _, want := range []string{"Walnut desk lamp", "linen shade", "E27 bulbs", "Our story"} {
		if !strings.Contains(got, want) {
			t.Errorf("lost %q:\n%s", want, got)
		}
	}
	for _, gone := range []string{"You may also like", "Oak lamp", "Elm lamp"} {
		if strings.Contains(got, gone) {
			t.Errorf("kept %q:\n%s", gone, got)
		}
	}
	// A boundary scored under tailCutMin cuts nothing.
	tailWeights[ftBias] = -40
	n = tailContent(t, tailPage)
	if tailCut(n, &productProbs, 200) {
		t.Error("cut under the threshold")
	}
}

// TestTailCutsRestore: the trainer's view puts every block back, so the
// content it reads without a cut is the pipeline's text, and each cut's
// text is a prefix of it.
func TestTailCutsRestore(t *testing.T) {
	page := "<html><body><main>" + tailPage + "</main><footer><a href=/x>About</a></footer></body></html>"
	var texts []string
	bs, err := TailCuts([]byte(page), "https://shop.example/p/lamp", func(cut int, text string) {
		texts = append(texts, text)
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := HTML([]byte(page), "https://shop.example/p/lamp", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) == 0 || texts[0] != doc.Text {
		t.Fatalf("the uncut text differs from the pipeline's:\n%q\n%q", texts, doc.Text)
	}
	if len(bs) == 0 || len(texts) != len(bs)+1 {
		t.Fatalf("%d boundaries, %d texts", len(bs), len(texts))
	}
	for i, b := range bs {
		if !b.Start && !strings.HasPrefix(doc.Text, strings.TrimSpace(texts[i+1])) {
			t.Errorf("end cut %d is not a prefix:\n%s", b.Cut, texts[i+1])
		}
	}
}

// TestTailSegmentsBounded: a deep chain and a page of many blocks stay
// cheap (the opened chain is at most maxTailOpen long; a content of
// more than maxTailSegs blocks is not cut).
func TestTailSegmentsBounded(t *testing.T) {
	deep := strings.Repeat("<div>", 500) + "<p>word word</p><p>more words</p>" + strings.Repeat("</div>", 500)
	wide := "<div>" + strings.Repeat("<p>a few words here</p>", 50000) + "</div>"
	for name, page := range map[string]string{"deep": deep, "wide": wide} {
		root, err := html.Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		n := findBody(root)
		start := time.Now()
		segs := tailSegments(n)
		if name == "wide" && segs != nil {
			t.Errorf("wide: %d blocks, want none", len(segs))
		}
		limit := 2 * time.Second
		if raceOn {
			limit *= 10
		}
		if d := time.Since(start); d > limit {
			t.Errorf("%s: %v", name, d)
		}
		tailCut(n, &productProbs, 100)
	}
}

// FuzzTailCut: the trainer's view and the cut never panic, the trainer's
// uncut text is valid UTF-8 and every boundary has its features.
func FuzzTailCut(f *testing.F) {
	for _, seed := range []string{
		"", "<p>x</p>", tailPage, "<main><div>" + tailPage + "</div><aside><a href=/a><img src=x>y</a></aside></main>",
		"<article><h1>T</h1>text <b>bare</b> words<form><button>Go</button></form><section><h2>More</h2><p>p</p></section></article>",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		bs, err := TailCuts(body, "https://example.com/a/b", func(cut int, text string) {
			if cut < 0 && !utf8.ValidString(text) {
				t.Fatalf("text is not valid UTF-8: %q", text)
			}
		})
		if err != nil {
			return
		}
		for _, b := range bs {
			if len(b.Features) != TailFeatureCount {
				t.Fatalf("%d features", len(b.Features))
			}
		}
		root, err := html.Parse(strings.NewReader(string(body)))
		if err != nil {
			return
		}
		saved := tailWeights
		defer func() { tailWeights = saved }()
		tailWeights = [numTailFeatures]float64{}
		tailWeights[ftBias] = 5
		tailCut(findBody(root), &productProbs, 10)
	})
}
