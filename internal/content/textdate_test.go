package content

import (
	"flag"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// benchTextDate switches textDate on in BenchmarkPipeline (go test -bench
// Pipeline ./internal/content/ -args -textdate).
var benchTextDate = flag.Bool("textdate", false, "BenchmarkPipeline with the text-date rule on")

// withTextDate runs f with the text-date rule on and the fetch time fixed.
func withTextDate(t *testing.T, on bool, f func()) {
	t.Helper()
	was, wasNow := textDateOn, textDateNow
	textDateOn = on
	textDateNow = func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }
	defer func() { textDateOn, textDateNow = was, wasNow }()
	f()
}

const textDateProse = `<p>The council met on a wet evening to weigh the plan for the river path, which has been argued over for three years now and still divides the town.</p>
<p>Residents who live along the bank said the path would bring more walkers past their gardens, while shop owners in the high street said it would bring trade they badly need.</p>
<p>The vote was put off again until the engineers report on the flood wall, which the council expects before the end of the summer.</p>
<p>Several members asked for a count of the trees that would be cut, and the clerk promised a list at the next meeting of the committee.</p>`

func textDatePage(byline, aside, footer string) string {
	return `<!doctype html><html><head><title>River path vote put off again</title></head><body>
<header><a href="/">Town News</a></header>
<main><article><h1>River path vote put off again</h1>` + byline + textDateProse + `</article></main>
<aside class="sidebar">` + aside + `</aside>
<footer>` + footer + `</footer></body></html>`
}

func TestTextDate(t *testing.T) {
	cases := []struct {
		name, page, want string
	}{
		{"byline", textDatePage(`<p class="byline">By Ann Lee, March 3, 2025</p>`, "", "<p>About us</p>"), "2025-03-03"},
		{"footer copyright", textDatePage("", "", `<p class="date">© 2024 Town News. Updated May 2, 2024</p>`), ""},
		{"sidebar date", textDatePage("", `<div class="date">April 9, 2025</div><a href="/x">Other story</a>`, ""), ""},
		{"left sidebar date", strings.Replace(textDatePage("", "", ""), "<main>", `<div id="sidebar-left"><div class="date">April 9, 2025</div><a href="/x">Other story</a></div><main>`, 1), ""},
		{"long notice", textDatePage(`<p class="date">Effective beginning March 3, 2025: this site and every site linked from it is under review and may change.</p>`, "", ""), ""},
		{"future", textDatePage(`<p class="byline">By Ann Lee, March 3, 2031</p>`, "", ""), ""},
		{"markup wins", strings.Replace(textDatePage(`<p class="byline">By Ann Lee, March 3, 2025</p>`, "", ""), "<head>", `<head><meta property="article:published_time" content="2025-03-01T08:00:00Z">`, 1), "2025-03-01T08:00:00Z"},
	}
	for _, c := range cases {
		withTextDate(t, true, func() {
			doc, err := HTML([]byte(c.page), "https://news.example/river", Options{OnlyMainContent: true})
			if err != nil {
				t.Fatal(err)
			}
			if doc.PageType != TypeArticle {
				t.Fatalf("%s: page type %s, want article", c.name, doc.PageType)
			}
			if got := doc.Metadata.PublishedTime; got != c.want {
				t.Errorf("%s: publishedTime %q, want %q", c.name, got, c.want)
			}
		})
	}
	// Without the rule the byline is not read.
	withTextDate(t, false, func() {
		doc, _ := HTML([]byte(cases[0].page), "https://news.example/river", Options{OnlyMainContent: true})
		if doc.Metadata.PublishedTime != "" {
			t.Errorf("rule off: publishedTime %q", doc.Metadata.PublishedTime)
		}
	})
}

// TestTextDateProduct: a product page, which the classifier does not call
// an article or forum, stays without a date even when its text shows one.
func TestTextDateProduct(t *testing.T) {
	page := `<!doctype html><html><head><title>Trail Runner 2 shoe</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Trail Runner 2","offers":{"@type":"Offer","price":"89.00","priceCurrency":"EUR"}}</script>
<meta property="og:type" content="product"></head><body>
<main><h1>Trail Runner 2</h1><p class="price">€89.00</p><button>Add to cart</button>
<p class="date">In stock since March 3, 2025</p>
<ul><li>Size 40</li><li>Size 41</li><li>Size 42</li></ul>
<p>A light shoe for rough paths, with a firm heel and a soft sole.</p></main></body></html>`
	withTextDate(t, true, func() {
		doc, err := HTML([]byte(page), "https://shop.example/p/trail-runner-2", Options{OnlyMainContent: true})
		if err != nil {
			t.Fatal(err)
		}
		if doc.PageType == TypeArticle || doc.PageType == TypeForum {
			t.Fatalf("page type %s, want a product page", doc.PageType)
		}
		if doc.Metadata.PublishedTime != "" {
			t.Errorf("publishedTime %q, want none", doc.Metadata.PublishedTime)
		}
	})
}

// TestTextDateGates: each gate alone refuses what it is for (they fail
// without it): a date in chrome, a long source, a date deep in the text,
// a machine timestamp.
func TestTextDateGates(t *testing.T) {
	if !inChrome(mustFirst(t, `<div class="related-posts"><p><span>x</span></p></div>`, "span"), nil) {
		t.Error("related block: not chrome")
	}
	if inChrome(mustFirst(t, `<article><p class="byline"><span>x</span></p></article>`, "span"), nil) {
		t.Error("byline: chrome")
	}
	if !machineDate.MatchString("2023-10-17T14:24:34") || !machineDate.MatchString("20190806") || machineDate.MatchString("March 3, 2025") {
		t.Error("machineDate")
	}
	deep := `<html><body><p>` + strings.Repeat("words of the story go on here. ", 40) + `</p><p>Retrieved March 3, 2025</p></body></html>`
	if dateInBody(mustParse(t, deep), "Retrieved March 3, 2025") {
		t.Error("a date past the first half of the text was taken")
	}
	top := `<html><body><p>By Ann, March 3, 2025</p><p>` + strings.Repeat("words of the story go on here. ", 40) + `</p></body></html>`
	if !dateInBody(mustParse(t, top), "By Ann, March 3, 2025") {
		t.Error("a byline at the top was refused")
	}
}

func mustParse(t *testing.T, page string) *html.Node {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func mustFirst(t *testing.T, page, tag string) *html.Node {
	t.Helper()
	n := findFirst(mustParse(t, page), func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == tag })
	if n == nil {
		t.Fatalf("no <%s>", tag)
	}
	return n
}

// FuzzTextDate: any page, any date source; textDate and dateInBody never
// panic and answer a day or nothing.
func FuzzTextDate(f *testing.F) {
	f.Add(textDatePage(`<p class="byline">By Ann Lee, March 3, 2025</p>`, "", ""), "March 3, 2025")
	f.Add(`<div class="date">1/2/2025<aside>`, "1/2/2025")
	f.Add("<p>\u00a0 caf\u00e9 \xff</p>", "caf")
	f.Fuzz(func(t *testing.T, page, src string) {
		root := mustParse(t, page)
		dateInBody(root, src)
		if d := textDate(root, 1000); d != "" && len(d) != len("2006-01-02") {
			t.Fatalf("textDate %q", d)
		}
	})
}
