package wire_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"webacq/internal/channel/wire"
	"webacq/internal/model"
)

// rss is a feed in Business Wire's shape: RSS 2.0 items with title, link,
// guid, pubDate, HTML description and categories.
func rss(items ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>
<title>Business Wire News</title><link>https://www.businesswire.com/</link><description>News</description>` +
		strings.Join(items, "\n") + `</channel></rss>`
}

func rssItem(guid, title, date, desc string) string {
	return fmt.Sprintf(`<item><title>%s</title><link>https://www.businesswire.com/news/home/%s/en/</link>
<guid isPermaLink="false">%s</guid><pubDate>%s</pubDate><category>Earnings</category>
<description><![CDATA[%s]]></description><dc:creator>Business Wire</dc:creator><extra>ignored</extra></item>`, title, guid, guid, date, desc)
}

// atomFeed is a feed in GlobeNewswire's shape: Atom entries.
const atomFeed = `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>GlobeNewswire - News about Public Companies</title><id>urn:gnw</id><updated>2026-11-20T12:00:00Z</updated>
<entry><id>urn:gnw:2001</id><title>Acme Corp Declares Quarterly Dividend</title>
<link href="https://www.globenewswire.com/news-release/2026/11/20/2001/0/en/acme.html"/>
<updated>2026-11-20T12:00:00Z</updated><summary type="html">&lt;p&gt;Acme Corp (NYSE: ACME) declared a dividend of $0.25 per share.&lt;/p&gt;</summary>
<category term="Dividend Reports and Estimates"/></entry>
<entry><id>urn:gnw:2002</id><title>Other Inc. reports results</title>
<link href="https://www.globenewswire.com/news-release/2026/11/19/2002/0/en/other.html"/>
<updated>2026-11-19T12:00:00Z</updated><summary>Other Inc. results.</summary></entry>
</feed>`

func TestParseAndMatch(t *testing.T) {
	items, err := wire.Parse([]byte(rss(
		rssItem("bw-1", "Acme Corp Reports Third Quarter 2026 Results", "Thu, 05 Nov 2026 21:05:00 +0000",
			"<p>ACME CORP (NYSE: ACME) today reported <b>record</b> revenue.</p><script>x()</script>"),
		rssItem("bw-2", "Acmeville Bank Announces Branch Opening", "Fri, 06 Nov 2026 13:00:00 +0000", "<p>Acmeville corp news.</p>"),
		rssItem("bw-3", "Acme Corp Names New CFO", "Mon, 09 Nov 2026 13:00:00 +0000", "Acme appoints a chief financial officer."),
	)))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].ID != "bw-3" || items[2].Summary != "ACME CORP (NYSE: ACME) today reported record revenue." ||
		len(items[2].Categories) != 1 {
		t.Fatalf("items %+v", items)
	}
	got := wire.Matching(items, "Acme Corp.", []string{"results", "dividend"})
	if len(got) != 1 || got[0].ID != "bw-1" {
		t.Errorf("matching with keywords: %+v", got)
	}
	if got := wire.Matching(items, "Acme Corporation", nil); len(got) != 2 {
		t.Errorf("matching without keywords: %+v (Acmeville is another company)", got)
	}

	items, err = wire.Parse([]byte(atomFeed))
	if err != nil || len(items) != 2 || items[0].ID != "urn:gnw:2001" || !strings.Contains(items[0].Summary, "$0.25 per share") {
		t.Fatalf("atom %+v %v", items, err)
	}
	if got := wire.Matching(items, "Acme", []string{"dividend"}); len(got) != 1 {
		t.Errorf("atom matching %+v", got)
	}
}

func TestHostileFeeds(t *testing.T) {
	many := make([]string, 10000)
	for i := range many {
		many[i] = rssItem(fmt.Sprint("id-", i), "Acme news", "Thu, 05 Nov 2026 21:05:00 +0000", "x")
	}
	for name, body := range map[string]string{
		"empty":      "",
		"not a feed": "<html><body>Hello</body></html>",
		"truncated":  rss(rssItem("a", "Acme", "Thu, 05 Nov 2026 21:05:00 +0000", "x"))[:200],
		"cut in an item": rss(rssItem("a", "Acme", "Thu, 05 Nov 2026 21:05:00 +0000", "x"),
			rssItem("b", "Acme", "Thu, 05 Nov 2026 22:05:00 +0000", "y"))[:600],
		"cut after an item": strings.TrimSuffix(rss(rssItem("a", "Acme", "Thu, 05 Nov 2026 21:05:00 +0000", "x")), "</channel></rss>"),
		"atom cut":          atomFeed[:len(atomFeed)-20],
		"10,000 items":      rss(many...),
		"json garbage":      `{"version": 1`,
		// The count before parsing missed items in upper case, and a JSON
		// feed has no tag to count: both were read whole, 10,000 items.
		"10,000 ITEMS": strings.NewReplacer("<item>", "<ITEM>", "</item>", "</ITEM>").Replace(rss(many...)),
		"10,000 JSON items": `{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[` +
			strings.Repeat(`{"id":"x","title":"Acme news"},`, len(many)-1) + `{"id":"y"}]}`,
	} {
		items, err := wire.Parse([]byte(body))
		if err == nil {
			t.Errorf("%s: %d items, no error", name, len(items))
		}
		if strings.HasPrefix(name, "truncated") || strings.Contains(name, "cut") {
			if !strings.Contains(model.ErrorMessage(err), "truncated") {
				t.Errorf("%s: %v, want an error saying the feed is truncated", name, err)
			}
		}
		if err != nil && model.ErrorCode(err) != model.CodeUpstreamError {
			t.Errorf("%s: %v, want upstream_error", name, err)
		}
	}
	// A whole feed followed by white space and a comment is complete.
	if items, err := wire.Parse([]byte(rss(rssItem("a", "Acme", "Thu, 05 Nov 2026 21:05:00 +0000", "x")) +
		"\n<!-- served in 12 ms -->\n")); err != nil || len(items) != 1 {
		t.Errorf("feed with a trailing comment: %v %v", items, err)
	}
	// An empty channel is a feed with no items, not an error.
	if items, err := wire.Parse([]byte(rss())); err != nil || len(items) != 0 {
		t.Errorf("empty channel: %v %v", items, err)
	}
}

func TestFetch(t *testing.T) {
	body := rss(rssItem("bw-1", "Acme Corp Reports Results", "Thu, 05 Nov 2026 21:05:00 +0000", "x"))
	var uas []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uas = append(uas, r.UserAgent())
		switch r.URL.Path {
		case "/big":
			w.Write([]byte(rss()[:50]))
			for i := 0; i < 17<<10; i++ {
				if _, err := w.Write([]byte(strings.Repeat(" ", 1024))); err != nil {
					return
				}
			}
			return
		case "/down":
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.Header().Set("ETag", `"f1"`)
		if r.Header.Get("If-None-Match") == `"f1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	c := wire.NewClient("webacq-test")
	ctx := context.Background()
	f, err := c.Fetch(ctx, srv.URL+"/feed", "", "")
	if err != nil || len(f.Items) != 1 || f.ETag != `"f1"` {
		t.Fatalf("fetch %+v %v", f, err)
	}
	if f, err = c.Fetch(ctx, srv.URL+"/feed", f.ETag, ""); err != nil || !f.NotModified {
		t.Errorf("conditional %+v %v", f, err)
	}
	for _, p := range []string{"/big", "/down"} {
		if _, err := c.Fetch(ctx, srv.URL+p, "", ""); model.ErrorCode(err) != model.CodeUpstreamError {
			t.Errorf("%s: %v", p, err)
		}
	}
	if uas[0] != "webacq-test" {
		t.Errorf("User-Agent %q", uas[0])
	}
}

// TestItemFieldsBounded: every field of an item is bounded, whatever the
// feed holds: items are kept in runs' snapshots and sent in alerts. A
// 4 MB title, link and GUID and 10,000 categories of 1,000 characters
// come out as a clipped title, no link (a cut link leads nowhere), an ID
// that still tells the item apart, and 32 short categories.
func TestItemFieldsBounded(t *testing.T) {
	huge := strings.Repeat("é", 2<<20) // 4 MB
	var cats strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&cats, "<category>%d%s</category>", i, strings.Repeat("c", 1000))
	}
	item := func(guid string) string {
		return `<item><title>` + huge + `</title><link>https://example.com/` + huge + `</link><guid>` + guid +
			`</guid><pubDate>Thu, 05 Nov 2026 21:05:00 +0000</pubDate>` + cats.String() + `<description>d</description></item>`
	}
	items, err := wire.Parse([]byte(rss(item(huge+"1"), item(huge+"2"), rssItem("plain", "Acme Corp Reports", "Thu, 05 Nov 2026 22:05:00 +0000", "x"))))
	if err != nil || len(items) != 3 {
		t.Fatalf("%d items, %v", len(items), err)
	}
	if it := items[0]; it.ID != "plain" || it.Title != "Acme Corp Reports" || it.Link == "" || len(it.Categories) != 1 {
		t.Errorf("a plain item changed: %+v", it)
	}
	a, b := items[1], items[2]
	for _, it := range []wire.Item{a, b} {
		if n := utf8.RuneCountInString(it.Title); n != 500 || !strings.HasSuffix(it.Title, "é…") {
			t.Errorf("title of %d characters ending %q, want 500 ending in an ellipsis", n, it.Title[len(it.Title)-8:])
		}
		if it.Link != "" || len(it.ID) > 512 || !strings.HasPrefix(it.ID, "sha256:") {
			t.Errorf("link of %d bytes, ID %q: want no link and a hashed ID", len(it.Link), it.ID[:min(len(it.ID), 80)])
		}
		if len(it.Categories) != 32 || utf8.RuneCountInString(it.Categories[31]) != 100 || !strings.HasPrefix(it.Categories[31], "31c") {
			t.Errorf("%d categories, the last %d characters, want 32 of 100", len(it.Categories), utf8.RuneCountInString(it.Categories[len(it.Categories)-1]))
		}
	}
	if a.ID == b.ID {
		t.Errorf("two long GUIDs that differ only at the end gave one ID %s", a.ID)
	}
	// The clip counts characters, not bytes, and leaves a string of
	// exactly the bound whole.
	exact := strings.Repeat("ü", 500)
	if items, err := wire.Parse([]byte(rss(rssItem("e", exact, "Thu, 05 Nov 2026 21:05:00 +0000", "x")))); err != nil || items[0].Title != exact {
		t.Errorf("a 500-character title was changed: %v", err)
	}
}
