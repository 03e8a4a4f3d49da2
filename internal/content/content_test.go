package content

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHTMLMarkdown(t *testing.T) {
	body := readTestdata(t, "article.html")
	for _, onlyMain := range []bool{true, false} {
		t.Run(fmt.Sprintf("onlyMainContent=%v", onlyMain), func(t *testing.T) {
			doc, err := HTML(body, "https://example.org/blog/tiny-parser", Options{OnlyMainContent: onlyMain, IncludeHTML: true})
			if err != nil {
				t.Fatal(err)
			}
			md := doc.Markdown
			for _, want := range []string{
				"## The grammar",
				"- An expression is a sum of terms.",
				"1. Write the grammar first.",
				"| Input | Time |",
				"| medium | 12 µs |",
				"```go\nfunc (p *parser) expr() int {",
				"\treturn v\n}\n```",
				// <base href> wins over the page URL for relative links and images.
				"[tokenizer](https://cdn.example.org/blog/posts/tokenizer.html)",
				"[language specification](https://go.dev/ref/spec)",
				"![Call tree](https://cdn.example.org/blog/images/tree.png)",
			} {
				if !strings.Contains(md, want) {
					t.Errorf("markdown lacks %q; got:\n%s", want, md)
				}
			}
			for _, bad := range []string{"window.analytics", "color: black", "javascript:"} {
				if strings.Contains(md, bad) {
					t.Errorf("markdown contains %q", bad)
				}
			}
			if !strings.Contains(doc.Text, "A term is a product of factors.") {
				t.Errorf("text lacks list item; got:\n%s", doc.Text)
			}
			if !strings.Contains(doc.HTML, `href="https://cdn.example.org/blog/posts/tokenizer.html"`) {
				t.Errorf("html lacks absolute link; got:\n%s", doc.HTML)
			}
			if doc.Links != nil {
				t.Errorf("links returned without IncludeLinks")
			}
		})
	}
}

func TestHTMLOnlyMainContent(t *testing.T) {
	body := readTestdata(t, "article.html")
	main, err := HTML(body, "https://example.org/", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(main.Markdown, "Copyright 2024") {
		t.Errorf("main content keeps the footer:\n%s", main.Markdown)
	}
	full, err := HTML(body, "https://example.org/", Options{OnlyMainContent: false})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.Markdown, "Copyright 2024") || !strings.Contains(full.Markdown, "[About](https://cdn.example.org/about)") {
		t.Errorf("whole body lacks footer or nav:\n%s", full.Markdown)
	}
}

func TestHTMLMetadata(t *testing.T) {
	doc, err := HTML(readTestdata(t, "article.html"), "https://example.org/blog/tiny-parser", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := doc.Metadata
	for _, c := range []struct{ field, got, want string }{
		{"Title", m.Title, "Writing a Tiny Parser in Go"},
		{"Description", m.Description, "How to write a small recursive-descent parser."},
		{"Language", m.Language, "en-US"},
		{"Canonical", m.Canonical, "https://example.org/blog/tiny-parser"},
		{"SiteName", m.SiteName, "The Example Blog"},
		{"Author", m.Author, "Ada Lovelace"},
		{"PublishedTime", m.PublishedTime, "2024-03-05T10:00:00Z"},
		{"Image", m.Image, "https://cdn.example.org/img/cover.png"},
		{"OpenGraph[og:site_name]", m.OpenGraph["og:site_name"], "The Example Blog"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.field, c.got, c.want)
		}
	}
}

func TestHTMLMetadataFallbacks(t *testing.T) {
	page := `<html><head><title>  Plain   title </title>
<meta property="og:locale" content="fr_FR">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"Site"},
{"@type":"NewsArticle","headline":"LD headline","datePublished":"2023-01-02","author":[{"@type":"Person","name":"Jean Dupont"}],"publisher":{"@type":"Organization","name":"Le Journal"}}]}</script>
</head><body><p>Du texte.</p><time datetime="2020-01-01">1 janvier</time></body></html>`
	doc, err := HTML([]byte(page), "https://example.fr/a", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := doc.Metadata
	if m.Title != "LD headline" || m.Author != "Jean Dupont" || m.PublishedTime != "2023-01-02" || m.SiteName != "Le Journal" || m.Language != "fr-FR" {
		t.Errorf("got %+v", m)
	}

	doc, err = HTML([]byte(`<html><head><title>  Plain   title </title></head><body><a rel="author" href="/me">Sam</a><time datetime="2020-01-01">x</time></body></html>`), "https://example.com/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Metadata.Title != "Plain title" || doc.Metadata.Author != "Sam" || doc.Metadata.PublishedTime != "2020-01-01" {
		t.Errorf("got %+v", doc.Metadata)
	}
}

func TestHTMLLinks(t *testing.T) {
	doc, err := HTML(readTestdata(t, "article.html"), "https://example.org/blog/tiny-parser", Options{IncludeLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	got := make(map[string]string)
	for _, l := range doc.Links {
		if _, dup := got[l.URL]; dup {
			t.Errorf("duplicate link %s", l.URL)
		}
		got[l.URL] = l.Text
	}
	want := map[string]string{
		"https://cdn.example.org/":                          "Home",
		"https://cdn.example.org/about":                     "About",
		"https://cdn.example.org/blog/posts/tokenizer.html": "tokenizer",
		"https://go.dev/ref/spec":                           "language specification",
		"https://cdn.example.org/contact":                   "Ada Lovelace",
	}
	for u, text := range want {
		if got[u] != text {
			t.Errorf("link %s: got text %q, want %q", u, got[u], text)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d links, want %d: %v", len(got), len(want), got)
	}
}

func TestHTMLBroken(t *testing.T) {
	body := readTestdata(t, "broken.html")
	doc, err := HTML(body, "https://example.com/dir/", Options{OnlyMainContent: true, IncludeLinks: true, IncludeHTML: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Text, "Unclosed paragraph") {
		t.Errorf("text lost: %q", doc.Text)
	}
	if len(doc.Links) != 1 || doc.Links[0].URL != "https://example.com/dir/rel/x?a=1&b=2" {
		t.Errorf("links: %+v", doc.Links)
	}
	// Every prefix of a real page must convert without panicking.
	article := readTestdata(t, "article.html")
	for n := 0; n < len(article); n += 97 {
		for _, onlyMain := range []bool{true, false} {
			_, _ = HTML(article[:n], "https://example.com/", Options{OnlyMainContent: onlyMain, IncludeLinks: true, IncludeHTML: true})
		}
	}
	if _, err := HTML([]byte("  \n"), "", Options{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty body: got %v, want ErrEmpty", err)
	}
}

func TestPlainJSONXML(t *testing.T) {
	if d := PlainText([]byte("Title line\n\nbody *as is*\n")); d.Markdown != "Title line\n\nbody *as is*" || d.Metadata.Title != "Title line" {
		t.Errorf("plain: got %+v", d)
	}
	if d := JSON([]byte(`{"a":[1,2]}`)); d.Markdown != "```json\n{\n  \"a\": [\n    1,\n    2\n  ]\n}\n```" {
		t.Errorf("json: got %q", d.Markdown)
	}
	if d := JSON([]byte(`{broken`)); d.Markdown != "{broken" {
		t.Errorf("invalid json: got %q", d.Markdown)
	}
	d := XML([]byte(`<?xml version="1.0"?><rss><channel><title>Feed &amp; more</title><item><title>One</title></item></channel></rss>`))
	if d.Metadata.Title != "Feed & more" || !strings.HasPrefix(d.Markdown, "```xml\n<?xml") || !strings.Contains(d.Text, "One") {
		t.Errorf("xml: got %+v", d)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		file   string
		status int
		want   Verdict
	}{
		{"cloudflare.html", 403, VerdictCaptcha},
		{"cloudflare.html", 200, VerdictCaptcha},
		{"hcaptcha.html", 200, VerdictCaptcha},
		{"datadome.html", 403, VerdictCaptcha},
		{"access-denied.html", 403, VerdictBlocked},
		{"access-denied.html", 200, VerdictBlocked},
		{"ratelimit.html", 429, VerdictThin}, // a rate limit, not a block: see TestClassifyRateLimitAndOutage
		{"react-shell.html", 200, VerdictJSRequired},
		{"next-shell.html", 200, VerdictJSRequired},
		{"soft404.html", 200, VerdictSoft404},
		{"thin.html", 200, VerdictThin},
		{"ok.html", 200, VerdictOK},
		{"ok.html", 403, VerdictBlocked},
		{"../article.html", 200, VerdictOK},
	} {
		t.Run(fmt.Sprintf("%s/%d", c.file, c.status), func(t *testing.T) {
			body := readTestdata(t, filepath.Join("verdict", c.file))
			doc, err := HTML(body, "https://example.com/", Options{OnlyMainContent: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := Classify(c.status, body, doc); got != c.want {
				t.Errorf("got %s, want %s (text %q)", got, c.want, doc.Text)
			}
		})
	}
	if got := Classify(200, []byte("plain words only"), nil); got != VerdictThin {
		t.Errorf("nil doc: got %s, want thin", got)
	}
	if got := Classify(200, nil, PlainText([]byte(strings.Repeat("word ", 80)))); got != VerdictOK {
		t.Errorf("long plain text: got %s, want ok", got)
	}
}

func TestDropBrRepeats(t *testing.T) {
	root, err := html.Parse(strings.NewReader(`<body><p>one<br>two<br>three</p><p>two</p><p>three</p><p>four</p><p>two</p></body>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findBody(root)
	dropBrRepeats(body)
	if got, want := textOf(body), "one\ntwo\nthree\nfour\ntwo"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A large page of markup with little text, which the readability pass
// gives up on, is not handed to trafilatura (minutes of CPU on such pages);
// a small one still is.
func TestNoFallbackOnHugeMarkup(t *testing.T) {
	for _, tt := range []struct {
		n        int
		fallback bool
	}{{1000, true}, {maxFallbackElements + 1, false}} {
		body := []byte("<html><body><article>" + strings.Repeat("<br>", tt.n) + "</article></body></html>")
		before := fallbacks.Load()
		if _, err := HTML(body, "http://127.0.0.1/", Options{OnlyMainContent: true}); err != nil {
			t.Fatal(err)
		}
		if got := fallbacks.Load() > before; got != tt.fallback {
			t.Errorf("%d <br>: handed to trafilatura %t, want %t", tt.n, got, tt.fallback)
		}
	}
}
