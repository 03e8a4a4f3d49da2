package content

import (
	"net/url"
	"strings"
	"testing"
)

// metaOf converts a small written page with one of meta's rules on or
// off and returns its metadata.
func metaOf(t *testing.T, sw *bool, on bool, page, pageURL string) Metadata {
	t.Helper()
	old := *sw
	*sw = on
	defer func() { *sw = old }()
	doc, err := HTML([]byte(page), pageURL, Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	return doc.Metadata
}

const metaBody = `<p>` + `Some words of the article that make a paragraph long enough to be read as content. ` +
	`More words of the article follow here, and then the article ends.</p>`

// TestMetaTitleConfirmedH1: the page's heading, confirmed by its
// og:title ("Heading | Site"), is the title; a logo <h1> linking to the
// site's root is not.
func TestMetaTitleConfirmedH1(t *testing.T) {
	page := `<html><head><title>What is Cloud Computing? | Example Cloud</title>
<meta property="og:title" content="What is Cloud Computing? | Example Cloud"></head>
<body><header><h1><a href="/">Example Cloud</a></h1></header>
<article><h1>What is Cloud Computing?</h1>` + metaBody + `</article></body></html>`
	if got := metaOf(t, &metaTitleOn, true, page, "https://example.com/learn/x").Title; got != "What is Cloud Computing?" {
		t.Errorf("title %q, want the confirmed heading", got)
	}
	if got := metaOf(t, &metaTitleOn, false, page, "https://example.com/learn/x").Title; got != "What is Cloud Computing? | Example Cloud" {
		t.Errorf("rule off: title %q, want og:title as before", got)
	}
	// A JSON-LD headline written for search engines yields to the
	// heading that og:title confirms.
	page2 := `<html><head><script type="application/ld+json">{"@type":"NewsArticle","headline":"Sample menus"}</script>
<meta property="og:title" content="7 days of healthy meals on a budget"></head>
<body><h1>7 days of healthy meals on a budget</h1>` + metaBody + `</body></html>`
	if got := metaOf(t, &metaTitleOn, true, page2, "https://example.org/a").Title; got != "7 days of healthy meals on a budget" {
		t.Errorf("title %q, want the heading", got)
	}
	// The site's name as a heading is never the title.
	page3 := `<html><head><meta property="og:site_name" content="Acme">
<meta property="og:title" content="Acme | Pricing plans for teams"></head>
<body><h1>Acme</h1>` + metaBody + `</body></html>`
	if got := metaOf(t, &metaTitleOn, true, page3, "https://acme.test/p").Title; got != "Acme | Pricing plans for teams" {
		t.Errorf("title %q, want og:title (the heading is the site's name)", got)
	}
}

// TestMetaAuthor: "By " and stray punctuation off the byline; the
// site's own name in the author field yields to a rel=author byline;
// an article:author URL is passed over for the next name.
func TestMetaAuthor(t *testing.T) {
	cases := []struct {
		name, head, body, url, want, wantOff string
	}{
		{"by prefix", `<meta name="author" content="By Corey Kilgannon">`, ``, "https://news.test/a", "Corey Kilgannon", "By Corey Kilgannon"},
		{"trailing dash", `<meta name="author" content="Nicolas Perriault —">`, ``, "https://blog.test/a", "Nicolas Perriault", "Nicolas Perriault —"},
		{"leading comma", `<script type="application/ld+json">{"@type":"NewsArticle","author":{"name":", USA TODAY"}}</script>`, ``, "https://usatoday.test/a", "USA TODAY", ", USA TODAY"},
		{"site yields to byline", `<meta property="og:site_name" content="Instructables"><meta name="author" content="Instructables">`,
			`<a rel="author" href="/member/MixmasterFred/">MixmasterFred</a>`, "https://www.instructables.com/x/", "MixmasterFred", "Instructables"},
		{"host name yields to byline", `<script type="application/ld+json">{"@type":"BlogPosting","author":{"@type":"Organization","name":"GlossGenius"}}</script>`,
			`<a rel="author" href="/team/shauna">Shauna Mitchell</a>`, "https://glossgenius.com/blog/x", "Shauna Mitchell", "GlossGenius"},
		{"site alone stays", `<meta property="og:site_name" content="Cleveland Clinic"><meta name="author" content="Cleveland Clinic">`, ``, "https://health.clevelandclinic.org/x", "Cleveland Clinic", "Cleveland Clinic"},
		{"url without scheme", `<meta property="article:author" content="www.facebook.com/tinyhouse"><meta name="author" content="tinyhouse">`, ``, "https://tinyhouse.com/2018/07/02/x/", "tinyhouse", "tinyhouse"},
	}
	for _, c := range cases {
		page := `<html><head>` + c.head + `</head><body><article><h1>A title here</h1>` + c.body + metaBody + `</article></body></html>`
		if got := metaOf(t, &metaAuthorOn, true, page, c.url).Author; got != c.want {
			t.Errorf("%s: author %q, want %q", c.name, got, c.want)
		}
		if got := metaOf(t, &metaAuthorOn, false, page, c.url).Author; got != c.wantOff {
			t.Errorf("%s, rule off: author %q, want %q", c.name, got, c.wantOff)
		}
	}
}

// TestMetaDate: a page that no article or Dublin Core markup dates is
// dated by its Highwire citation date, an <abbr itemprop=datePublished
// title>, or the day in its URL's path; the text of an element marked
// datePublished is not read.
func TestMetaDate(t *testing.T) {
	cases := []struct {
		name, head, body, url, want string
	}{
		{"citation", `<meta name="citation_publication_date" content="2025/12/18">`, ``, "https://arxiv.test/abs/1", "2025/12/18"},
		{"abbr", ``, `<abbr class="published" itemprop="datePublished" title="2025-12-19T15:18:00-05:00">December 19</abbr>`, "https://blog.test/p.html", "2025-12-19T15:18:00-05:00"},
		{"url segments", ``, ``, "https://blog.rust-lang.test/2025/12/19/what-people-love/", "2025-12-19"},
		{"url slug", ``, ``, "https://lmsys.test/blog/2025-12-17-minisgl", "2025-12-17"},
		{"element text not read", ``, `<time itemprop="datePublished">2019-01-21T21:40:59Z</time>`, "https://q.test/questions/1", ""},
		{"markup first", `<meta property="article:published_time" content="2024-01-02T10:00:00Z">`, ``, "https://blog.test/2025/12/19/x/", "2024-01-02T10:00:00Z"},
	}
	for _, c := range cases {
		page := `<html><head>` + c.head + `</head><body><article><h1>A title here</h1>` + c.body + metaBody + `</article></body></html>`
		if got := metaOf(t, &metaDateOn, true, page, c.url).PublishedTime; got != c.want {
			t.Errorf("%s: date %q, want %q", c.name, got, c.want)
		}
		if c.want != "" && !strings.HasPrefix(c.name, "markup") {
			if got := metaOf(t, &metaDateOn, false, page, c.url).PublishedTime; got != "" {
				t.Errorf("%s, rule off: date %q, want none", c.name, got)
			}
		}
	}
}

func TestURLDay(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.test/2025/12/19/x":                                  "2025-12-19",
		"https://a.test/blog/2025-12-17-mini":                          "2025-12-17",
		"https://a.test/2025/13/19/x":                                  "",
		"https://a.test/1985/01/01/x":                                  "",
		"https://a.test/2025/12/x":                                     "",
		"https://a.test/x/20251219":                                    "",
		"https://a.test/p/2025-12-170":                                 "",
		"https://a.test/" + strings.Repeat("1/", 10000) + "2025/01/02": "",
	} {
		u, _ := url.Parse(in)
		if got := urlDay(u); got != want {
			t.Errorf("urlDay(%.60q) = %q, want %q", in, got, want)
		}
	}
	if urlDay(nil) != "" {
		t.Error("urlDay(nil) not empty")
	}
}

// TestMetaBounded: a hostile page (10,000 headings, a title of 1 MB,
// a byline of 1 MB) converts, and the title rule compares bounded keys.
func TestMetaBounded(t *testing.T) {
	big := strings.Repeat("word ", 200000)
	var b strings.Builder
	b.WriteString(`<html><head><meta property="og:title" content="` + big + ` | Site"><meta name="author" content="By ` + big + `"></head><body>`)
	for range 10000 {
		b.WriteString("<h1>" + big[:50] + "</h1>")
	}
	b.WriteString(metaBody + "</body></html>")
	doc, err := HTML([]byte(b.String()), "https://x.test/2025/01/02/a", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Metadata.Title == "" || doc.Metadata.Author == "" {
		t.Errorf("title %d bytes, author %d bytes", len(doc.Metadata.Title), len(doc.Metadata.Author))
	}
}

// FuzzMetaRules feeds arbitrary headings, titles, bylines and URL paths
// to the meta rules' helpers: they must never panic, answer a heading
// only from those given, clean a byline only by trimming it, and date a
// path only by a day it holds.
func FuzzMetaRules(f *testing.F) {
	f.Add("What is X?", "What is X? | Site", "Site", "By Jane Doe —", "/2025/12/19/x")
	f.Add("Site", "Site | Pricing", "Site", ", USA TODAY", "/blog/2025-12-17-mini")
	f.Add("", "\xff | \xfe", "", "by:", "/9999/99/99/")
	f.Add("A – B", "a - b :: c", "c", "www.facebook.com/x", "/2025-1")
	f.Fuzz(func(t *testing.T, h1, title, site, byline, path string) {
		got := confirmedH1([]string{h1, title}, []string{title, h1 + " | " + site}, []string{site})
		if got != "" && got != h1 && got != title {
			t.Fatalf("confirmedH1 answered %q, not a heading given", got)
		}
		if a := bylineName(byline); !strings.Contains(clean(byline), a) {
			t.Fatalf("bylineName(%q) = %q, not a part of it", byline, a)
		}
		_ = siteAuthor(byline, []string{site}, &url.URL{Host: site + ".example"})
		if d := urlDay(&url.URL{Path: path}); d != "" && (len(d) != 10 || !strings.Contains(path, d[:4])) {
			t.Fatalf("urlDay(%q) = %q", path, d)
		}
	})
}
