package primitive

import (
	"bytes"
	"compress/gzip"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSitemap: readSitemap of any body (XML sitemap or index, RSS, Atom,
// plain text, gzipped or not) is deterministic and keeps its bounds: at
// most max pages and sitemapMaxKept bytes of them, at most mapMaxSitemaps
// children; URLs trimmed, non-empty and at most sitemapMaxText bytes;
// titles on one line and at most sitemapMaxText bytes; from a body that is
// not gzipped, no string longer than the body; from XML, valid UTF-8 (the
// decoder refuses anything else, and a cut title keeps whole characters).
func FuzzSitemap(f *testing.F) {
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(s))
		_ = zw.Close()
		return b.Bytes()
	}
	urlset := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://e.com/a</loc><lastmod>2026-01-01</lastmod></url>
<url><loc> https://e.com/b?x=1&amp;y=2 </loc></url></urlset>`
	seeds := [][]byte{
		[]byte(urlset),
		gz(urlset),
		[]byte(`<sitemapindex><sitemap><loc>/s1.xml</loc></sitemap><sitemap><loc>https://e.com/s2.xml.gz</loc></sitemap></sitemapindex>`),
		[]byte(`<rss version="2.0"><channel><title>t</title><item><title>  One
 two </title><link>https://e.com/1</link></item><item><link>https://e.com/2</link></item></channel></rss>`),
		[]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>A</title><link rel="self" href="https://e.com/self"/>` +
			`<link href="https://e.com/a"/></entry><entry><link rel="ALTERNATE" href=" https://e.com/b "/></entry></feed>`),
		[]byte(`<rdf:RDF><item><link>https://e.com/r</link></item></rdf:RDF>`),
		[]byte("\xef\xbb\xbf  https://e.com/1\r\nHTTPS://E.COM/2\nftp://e.com/3\n\nnot a url\nhttps://e.com/\xff\n"),
		[]byte("<html><body><a href=https://e.com/>x</a></body></html>"),
		[]byte("<urlset><url><loc>https://e.com/" + strings.Repeat("a", sitemapMaxText) + "</loc></url><url><loc>https://e.com/b</loc></url></urlset>"),
		[]byte("<rss><channel><item><title>" + strings.Repeat("é", sitemapMaxText/2+1) + "</title><link>https://e.com/1</link></item></channel></rss>"),
		[]byte("<urlset><url><loc>https://e.com/a</loc></url>" + strings.Repeat("<x>", 300) + "<url><loc>https://e.com/b</loc></url></urlset>"),
		[]byte("<urlset><url><loc>https://e.com/a</loc></url><!--" + strings.Repeat("<>", 100) + "--></urlset>"),
		[]byte("<sitemapindex>" + strings.Repeat("<sitemap><loc>/c.xml</loc></sitemap>", mapMaxSitemaps+2) + "</sitemapindex>"),
		[]byte("<urlset><url><loc>&#xD800;</loc></url><url><loc>&bogus;</loc></url><url><loc><![CDATA[https://e.com/c]]></loc></url></urlset>"),
		gz("<urlset><url><loc>https://e.com/ok</loc></url><url><loc>https://e.com/" + strings.Repeat("a", 10000)),
		{0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff},
		{},
	}
	for _, s := range seeds {
		f.Add(s, uint8(100))
	}
	f.Add([]byte("https://e.com/1\nhttps://e.com/2\nhttps://e.com/3\n"), uint8(2))
	f.Add([]byte(urlset), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, max8 uint8) {
		max := int(max8)
		pages, children := parseSitemap(body, max)
		pages2, children2 := parseSitemap(body, max)
		if !reflect.DeepEqual(pages, pages2) || !reflect.DeepEqual(children, children2) {
			t.Fatalf("not deterministic: %q %q then %q %q", pages, children, pages2, children2)
		}
		if len(pages) > max || len(children) > mapMaxSitemaps {
			t.Fatalf("%d pages (max %d), %d children", len(pages), max, len(children))
		}
		gzipped := len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
		isXML := !gzipped && len(trimmed) > 0 && trimmed[0] == '<'
		check := func(what, s string) {
			if len(s) > sitemapMaxText || (!gzipped && len(s) > len(body)) {
				t.Fatalf("%s of %d bytes from a body of %d", what, len(s), len(body))
			}
			if isXML && !utf8.ValidString(s) {
				t.Fatalf("%s %q is not UTF-8", what, s)
			}
		}
		kept := 0
		for _, p := range pages {
			if p.URL == "" || p.URL != strings.TrimSpace(p.URL) {
				t.Fatalf("page URL %q", p.URL)
			}
			if p.Title != collapseSpace(p.Title) {
				t.Fatalf("title %q not on one line", p.Title)
			}
			check("URL", p.URL)
			check("title", p.Title)
			kept += len(p.URL) + len(p.Title)
		}
		if kept > sitemapMaxKept {
			t.Fatalf("kept %d bytes", kept)
		}
		for _, c := range children {
			if c == "" || c != strings.TrimSpace(c) {
				t.Fatalf("child %q", c)
			}
			check("child", c)
		}
		if !isXML && !gzipped && len(children) > 0 {
			t.Fatalf("children %q from a text sitemap", children)
		}
	})
}
