package content

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

var memoHrefs = []string{"a.html", "a.html#x", "/b/c.html?q=1#f", "../up.html", "./here.html", "#top", "?q=2",
	"https://other.example/x", "//cdn.example/y.png", "mailto:a@example.com", "javascript:void(0)", "%zz",
	"http://[::1", "a b.html", "dir/", "", "tel:+1", "ftp://f.example/file"}

// TestResolvedLinksAsResolve: what the memo gives is what resolve gives,
// asked once or again, under another base, past its bound, and addLink
// does not change the URLs it shares.
func TestResolvedLinksAsResolve(t *testing.T) {
	bases := []string{"https://example.com/docs/page.html", "https://example.com/other/", "http://h.example"}
	str := func(u *url.URL) string {
		if u == nil {
			return "<nil>"
		}
		return u.String()
	}
	var r resolvedLinks
	for round := range 2 {
		for _, b := range bases {
			base, _ := url.Parse(b)
			for _, h := range memoHrefs {
				want := str(resolve(base, h))
				if got := str(r.resolve(base, h)); got != want {
					t.Fatalf("round %d, base %s: resolve(%q) = %s, want %s", round, b, h, got, want)
				}
				if got := str(r.known(base, h)); got != want {
					t.Fatalf("round %d, base %s: known(%q) = %s, want %s", round, b, h, got, want)
				}
			}
		}
	}
	base, _ := url.Parse(bases[0])
	for i := range maxResolved + 10 {
		h := fmt.Sprintf("p%d.html#f", i)
		if got, want := str(r.resolve(base, h)), str(resolve(base, h)); got != want {
			t.Fatalf("%q: %s, want %s", h, got, want)
		}
	}
	if len(r.urls) > maxResolved {
		t.Fatalf("%d links remembered, bound %d", len(r.urls), maxResolved)
	}
	// scan's links leave the remembered URLs as they were (fragments kept).
	page := `<html><body><a href="a.html#x">A</a><a href="a.html#y">A2</a><a href="/b/c.html?q=1#f">B</a></body></html>`
	root, _ := html.Parse(strings.NewReader(page))
	s := scan(root, base, true)
	if len(s.links) != 2 || s.links[0].URL != "https://example.com/docs/a.html" {
		t.Fatalf("links %+v", s.links)
	}
	if u := s.resolved.known(s.base, "a.html#x"); u == nil || u.Fragment != "x" {
		t.Fatalf("the remembered URL of a.html#x is %v", u)
	}
}

// TestAbsolutizeWithScanLinks: the content made absolute with the links
// scan resolved is the content made absolute without them, <base> and all.
func TestAbsolutizeWithScanLinks(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><base href="https://base.example/x/"></head><body><main>`)
	for _, h := range memoHrefs {
		fmt.Fprintf(&b, `<p><a href=" %s ">link</a> <img src="%s"></p>`, h, h)
	}
	b.WriteString(`</main></body></html>`)
	for _, page := range []string{b.String(), strings.Replace(b.String(), `<base href="https://base.example/x/">`, "", 1)} {
		pageURL, _ := url.Parse("https://example.com/docs/page.html")
		one, _ := html.Parse(strings.NewReader(page))
		two, _ := html.Parse(strings.NewReader(page))
		s1 := scan(one, pageURL, true)
		s2 := scan(two, pageURL, true)
		absolutizeWith(one, s1.base, nil, s1.resolved)
		absolutize(two, s2.base, nil)
		var r1, r2 strings.Builder
		_ = html.Render(&r1, one)
		_ = html.Render(&r2, two)
		if r1.String() != r2.String() {
			t.Fatalf("with scan's links:\n%s\nwithout:\n%s", r1.String(), r2.String())
		}
	}
}
