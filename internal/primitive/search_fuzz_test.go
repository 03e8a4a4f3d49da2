package primitive

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzSearchHit: makeHit of any provider result keeps only an http(s) URL
// with a host, a title and snippet on one line, a date in RFC 3339 not
// before since; and the same result gives the same hit.
func FuzzSearchHit(f *testing.F) {
	for _, seed := range [][4]string{
		{"https://e.com/a", "<strong>Acme</strong> results", "Q3 &amp; <b>more</b>\n\tlines", "2026-11-20T12:00:00Z"},
		{" http://e.com ", "a < b > c", "<!-- x --><p>t</p>", "2026-11-20"},
		{"javascript:alert(1)", "", "", ""},
		{"https://", "&lt;b&gt;", "&nGt; <x", "2026-11-20 12:00:00.5"},
		{"HTTPS://E.COM/%zz", "\xff<a\xff>", "<", "1999-01-01"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	since := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, rawURL, title, snippet, published string) {
		h, ok := makeHit(rawURL, title, snippet, published, since)
		h2, ok2 := makeHit(rawURL, title, snippet, published, since)
		if h != h2 || ok != ok2 {
			t.Fatalf("not deterministic: %+v %v then %+v %v", h, ok, h2, ok2)
		}
		if !ok {
			if h != (SearchHit{}) {
				t.Fatalf("a dropped hit %+v", h)
			}
			return
		}
		u, err := url.Parse(h.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("hit URL %q: %v", h.URL, err)
		}
		for _, s := range []string{h.Title, h.Snippet} {
			if s != strings.Join(strings.Fields(s), " ") {
				t.Fatalf("%q is not on one line", s)
			}
		}
		if h.PublishedAt != "" {
			at, err := time.Parse(time.RFC3339, h.PublishedAt)
			if err != nil || at.Before(since) {
				t.Fatalf("published %q: %v", h.PublishedAt, err)
			}
		}
	})
}
