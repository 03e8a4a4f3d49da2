package detect

import (
	"net/url"
	"slices"
	"testing"
)

func TestNormalizeVolatile(t *testing.T) {
	// Each pair must normalise alike.
	same := [][2]string{
		{"Updated Nov 23, 2026 10:42 AM", "Updated 3 hours ago"},
		{"Updated 10:42 AM", "Updated Nov 24, 2026 at 9:15 PM ET"},
		{"Posted 2026-11-23T10:42:00Z by Ann", "Posted 2026-11-24T08:00:00+01:00 by Ann"},
		{"Posted 2026-11-23 by Ann", "Posted yesterday by Ann"},
		{"Meeting on 23/11/2026.", "Meeting on 24.11.2026."},
		{"Meeting on 11/23/26.", "Meeting on Monday, November 30th 2026."},
		{"am 23. November 2026 veröffentlicht", "am 1. Dezember 2026 veröffentlicht"},
		{"Le 23 novembre 2026", "Le 2 décembre 2026"},
		{"an hour ago", "a few minutes ago"},
		{"5m ago", "just now"},
		{"Sat, 23-Nov-2026", "Tue, 01-Dec-2026"},
		{"1,234 views", "1,301 views"},
		{"12 comments · 1.2K likes", "14 comments · 1.3K likes"},
		{"Views: 1,234", "Views: 99"},
		{"Comments (5)", "Comments (12)"},
		{"Inbox (3)", "Inbox (4)"},
		{"session 9f86d081884c7d659a2feaa0c55ad015 ok", "session 0123456789abcdef0123 ok"},
		{"id 550e8400-e29b-41d4-a716-446655440000", "id 123e4567-e89b-12d3-a456-426614174000"},
		{"csrf=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi", "csrf=QWxhZGRpbjpvcGVuIHNlc2FtZTEyMzQ1Ng9"},
		{"see https://x.com/a?utm_source=tw&id=3", "see https://x.com/a?id=3&utm_medium=mail"},
		{"a\u00a0b\u200bc  d", "a bc d"},
		{"period > '2020-08-01 00:00:00 UTC'::timestamptz", "period > '2020-09-07 00:00:00 UTC'::timestamptz"},
		{"Counsel Office. [1 October 1998]. Retrieved 3 May 2010.", "Counsel Office. [7 November 1998]. Retrieved 9 June 2011."},
		{"shutting down on November 30, 2016.[68]", "shutting down on December 6, 2017.[68]"},
		{"Gerrit Bockey2022-11-24 09:17:332022-11-24 09:26:37Dekra baut", "Gerrit Bockey2022-12-31 09:17:332022-12-31 09:26:37Dekra baut"},
		{"Shana Nys DambrotNovember 6, 2023", "Shana Nys DambrotDecember 13, 2023"},
		{"By Cat Lafuente/June 12, 2020 9:49 am EST/Updated", "By Cat Lafuente/July 19, 2020 9:49 am EST/Updated"},
		{"Updated: Nov 5, 2024If you are serving food", "Updated: Dec 12, 2025If you are serving food"},
		{"Terrence O'Brien12:03 AM GMT+2", "Terrence O'Brien3:20 AM GMT+2"},
		{"San Francisco: 23-26 March 2026", "San Francisco: 2-5 May 2026"},
		{"Munich: March 23–26, 2026", "Munich: May 4–7"},
		{`<td><time datetime="2010-06-03">June 3, 2010</time></td>`, `<td><time datetime="2010-07-10">July 10, 2010</time></td>`},
	}
	for _, c := range same {
		a, b := Normalize(c[0]), Normalize(c[1])
		if a != b {
			t.Errorf("Normalize(%q) = %q, Normalize(%q) = %q, want equal", c[0], a, c[1], b)
		}
	}
	// Each pair must stay different: real figures and words.
	differ := [][2]string{
		{"revenue of $1.2 billion", "revenue of $1.3 billion"},
		{"EPS 0.45", "EPS 0.46"},
		{"Revenue | 1,234 | 987", "Revenue | 1,235 | 987"},
		{"Net loss | (1,234) | (987)", "Net loss | (1,234) | (988)"},
		{"repurchased 2.5 million shares", "repurchased 3.5 million shares"},
		{"raised rates by 50 basis points", "raised rates by 75 basis points"},
		{"Q3 2026 results", "Q4 2026 results"},
		{"fiscal 2026 guidance", "fiscal 2027 guidance"},
		{"a 3:1 stock split", "a 2:1 stock split"},
		{"version 1.2.3", "version 1.2.4"},
		{"Donaudampfschifffahrtsgesellschaft", "Donaudampfschifffahrtsgesellschafts"},
		{"in May 5 million units", "in May 6 million units"},
		{"the November 2026 presentation", "the December 2026 presentation"},
		{"net income rose 12%", "net income rose 13%"},
		{"see note [12]", "see note [13]"},
		{"order ABC-1234-5678-99", "order ABC-1234-5678-98"},
		{"JohnMarch 3 and 4", "JohnMarch 3 and 5"},
		{"rooms 23-26 on floor 2", "rooms 23-27 on floor 2"},
		{"<td>0.00</td>", "<td>7.50</td>"},
		{"if 3>2 then", "if 3>1 then"},
	}
	for _, c := range differ {
		if a, b := Normalize(c[0]), Normalize(c[1]); a == b {
			t.Errorf("Normalize(%q) = Normalize(%q) = %q, want different", c[0], c[1], a)
		}
	}
}

func TestNormalizeKeepsText(t *testing.T) {
	for in, want := range map[string]string{
		"  Acme   reports\n earnings ":          "Acme reports earnings",
		"Posted Nov 23, 2026, the company said": "Posted ⟨when⟩, the company said",
		"Revenue of $1.2 billion (up 5%)":       "Revenue of $1.2 billion (up 5%)",
		"1,234 views":                           "⟨n⟩ views",
		"":                                      "",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormLink(t *testing.T) {
	for in, want := range map[string]string{
		"https://x.com/a.pdf?utm_source=x&utm_medium=y":            "https://x.com/a.pdf",
		"https://x.com/a?id=3&sid=abc&_=1700000000000#top":         "https://x.com/a?id=3",
		"https://x.com/a;jsessionid=ABC123?x=1":                    "https://x.com/a?x=1",
		"https://x.com/a.html?":                                    "https://x.com/a.html",
		"https://x.com/a?v=9f86d081884c7d659a2feaa0c55ad015&p=2":   "https://x.com/a?v=⟨token⟩&p=2",
		"https://x.com/files/9f86d081884c7d659a2feaa0c55ad015.pdf": "https://x.com/files/9f86d081884c7d659a2feaa0c55ad015.pdf",
	} {
		if got := normLink(in); got != want {
			t.Errorf("normLink(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsDocumentLink(t *testing.T) {
	for u, want := range map[string]bool{
		"https://x.com/a/q3.pdf":          true,
		"https://x.com/a/q3.PDF?dl=1":     true,
		"https://x.com/a/data.xlsx":       true,
		"https://x.com/a/report.docx#p2":  true,
		"https://x.com/a/page.html":       false,
		"https://x.com/a.pdf/view":        false,
		"https://x.com/press":             false,
		"https://x.com/download?f=a.html": false,
	} {
		if got := isDocumentLink(u); got != want {
			t.Errorf("isDocumentLink(%q) = %v", u, got)
		}
	}
}

// TestResolveFastPath checks that plain links resolved without the url
// package read as the url package would write them.
func TestResolveFastPath(t *testing.T) {
	p := &page{base: mustURL(t, "https://Ir.Example.com:8443/a/b?x=1")}
	w := &walker{p: p, origin: "https://Ir.Example.com:8443"}
	for _, ref := range []string{"/files/q3.pdf", "/", "/a:b/c", "https://x.com/a/b.pdf", "http://X.com/A",
		"/a/./b", "/a/../b", "//cdn.x.com/a", "https://x.com", "rel/path", "/a b", "/a?b=1#c",
		"http://", "https://", "http:///a", "http://x.com/", "https://x/y/"} {
		want := ""
		if u, err := url.Parse(ref); err == nil {
			if u = p.base.ResolveReference(u); u.Scheme == "https" || u.Scheme == "http" {
				want = cleanLink(u)
			}
		}
		if got := w.resolve(ref); got != want {
			t.Errorf("resolve(%q) = %q, want %q", ref, got, want)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestWordHashesReadDatesAlike(t *testing.T) {
	same := [][2]string{
		{"Posted Oct 28, 2026 at 10:42 AM by Ann", "Posted 2026-10-28 at 9am by Ann"},
		{"1,234 views", "99 views"},
		{"Revenue | $1.2 billion", "Revenue | $1.3 billion"},
	}
	for _, c := range same {
		a, b := wordHashes(c[0], nil), wordHashes(c[1], nil)
		if !slices.Equal(a, b) {
			t.Errorf("%q and %q hash apart: %v %v", c[0], c[1], a, b)
		}
	}
	if a, b := wordHashes("Q3 results", nil), wordHashes("Q4 results", nil); !slices.Equal(a, b) || len(a) != 2 {
		t.Errorf("Q3/Q4: %v %v", a, b)
	}
	if a, b := wordHashes("quarterly results", nil), wordHashes("annual results", nil); slices.Equal(a, b) {
		t.Error("different words hash alike")
	}
}
