package wire

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"webacq/internal/model"
)

// FuzzParse: Parse of any body is deterministic; it answers items or an
// upstream_error, never both; at most MaxItems items, newest first, each
// with an ID, a title and categories on one line, a summary of at most
// maxSummary characters, and no string more than three bytes per byte of
// the body (entities and stray bytes decode to at most that).
func FuzzParse(f *testing.F) {
	rss := `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Wire</title>
<item><title>Acme Corp Reports  Results</title><link>https://www.businesswire.com/news/home/1/en/</link>
<guid isPermaLink="false">bw-1</guid><pubDate>Thu, 05 Nov 2026 21:05:00 +0000</pubDate><category>Earnings</category>
<description><![CDATA[<p>ACME CORP (NYSE: ACME) today reported <b>record</b> revenue.</p><script>x()</script>]]></description></item>
<item><title>No date</title><link>https://e.com/2</link><description>a &amp; b</description></item>
</channel></rss>`
	atom := `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>GNW</title><id>urn:gnw</id>
<entry><id>urn:gnw:2001</id><title type="html">Acme &lt;b&gt;Declares&lt;/b&gt; Dividend</title>
<link href="https://www.globenewswire.com/news-release/2026/11/20/2001/0/en/acme.html"/>
<updated>2026-11-20T12:00:00Z</updated><summary type="html">&lt;p&gt;Acme Corp declared a dividend.&lt;/p&gt;</summary>
<category term="Dividend Reports"/></entry>
<entry><title>Only a title</title></entry></feed>`
	for _, seed := range []string{
		rss, atom,
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><item><title>R</title><link>https://e.com/r</link></item></rdf:RDF>`,
		`{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[{"id":"1","title":"T","content_html":"<p>x</p>","date_published":"2026-11-20T12:00:00Z"},{"id":""}]}`,
		rss[:200], atom[:len(atom)-20], rss + "\n<!-- served -->\n", `{"version": 1`, "", "   ",
		`<rss><channel><item><title>` + strings.Repeat("word ", 600) + `</title><description>` + strings.Repeat("é", 2100) + `</description></item></channel></rss>`,
		`<rss><channel>` + strings.Repeat(`<item><guid>x</guid></item>`, 40) + `</channel></rss>`,
		"<rss><channel><item><title>\xff\x00</title><category> </category><category>a\tb</category></item></channel></rss>",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := Parse(body)
		again, err2 := Parse(body)
		if !reflect.DeepEqual(items, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("not deterministic: %+v, %v then %+v, %v", items, err, again, err2)
		}
		if err != nil {
			if items != nil || model.ErrorCode(err) != model.CodeUpstreamError {
				t.Fatalf("error %v with %d items", err, len(items))
			}
			return
		}
		if len(items) > MaxItems {
			t.Fatalf("%d items, more than %d", len(items), MaxItems)
		}
		for i, it := range items {
			if it.ID == "" || it.ID != strings.TrimSpace(it.ID) || it.Title != oneLine(it.Title) {
				t.Fatalf("item %d: ID %q, title %q", i, it.ID, it.Title)
			}
			if n := utf8.RuneCountInString(it.Summary); n > maxSummary || it.Summary != oneLine(it.Summary) {
				t.Fatalf("item %d: summary of %d characters: %q", i, n, it.Summary)
			}
			for _, c := range it.Categories {
				if c == "" || c != oneLine(c) {
					t.Fatalf("item %d: category %q", i, c)
				}
			}
			for _, s := range append([]string{it.ID, it.Title, it.Link, it.Summary}, it.Categories...) {
				if len(s) > 3*len(body) {
					t.Fatalf("item %d: a string of %d bytes from a body of %d", i, len(s), len(body))
				}
			}
			if i > 0 && items[i-1].Published.Before(it.Published) {
				t.Fatalf("items not newest first: %v before %v", items[i-1].Published, it.Published)
			}
		}
	})
}
