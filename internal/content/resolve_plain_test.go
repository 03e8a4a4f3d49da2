package content

import (
	"math/rand"
	"net/url"
	"strings"
	"testing"
)

// resolveByURL is resolve without resolvePlain: net/url's parse and
// resolution.
func resolveByURL(base *url.URL, ref string) *url.URL {
	ref = strings.TrimSpace(ref)
	u, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	if base == nil {
		return u
	}
	return base.ResolveReference(u)
}

// TestResolvePlainAsURL: the plain paths' shortcut gives the URL net/url
// gives, field for field, on generated bases and links, and takes only
// plain ones.
func TestResolvePlainAsURL(t *testing.T) {
	bases := []string{
		"http://127.0.0.1/app-psql.html", "https://example.com", "https://example.com/", "http://h/a/b/c",
		"http://h/a//b/", "http://user:pw@h:8080/x/y.html?q=1#f", "http://h/%7Ea/b", "http://h/a%2Fb/c",
		"http://h/a b/c", "http://h/a/./b/../c", "mailto:a@b", "http://h/é/x", "http://h/*", "file:///tmp/a",
		"http://[::1]:80/a/b", "//h/a/b", "/rel/base", "http://h/a;b/c", "http://h/a:b/c",
	}
	pieces := []string{"a", "b.html", "/", "//", ".", "..", "./", "../", "-", "_", "~", "x.y", "%41", "?q", "#f", "#", "#x/y", ":", "é", " ", "+", "A", "0", "*", "@", ";", "=", "&",
		"https://", "http://", "https://h", "http://H.x"}
	r := rand.New(rand.NewSource(5))
	refs := []string{"", "/", "//", "a", "/a", "//h/a", "a/./b", "a/../b", ".", "..", "a/", "/a/b/", "app-pgdump.html", "sql-select.html", "sql-select.html#SQL-FROM", "a#", "#f", "a#b#c", "a#b/c", "a#%41", "a#b c", "http://h/a", "a:b",
		"https://example.com", "https://example.com/", "http://Example.COM/a/b.html#x", "https://h/a/./b", "https://h/a/../b", "https://h/..",
		"https://h//a", "https://h/a?q=1", "https://h/a#b/c", "https://h:80/a", "https://u@h/a", "https://h.-x/a~b_c", "HTTPS://h/a",
		"https:/h/a", "https:h/a", "https:///a", "https://h#f", "https://h/%41", "https://h/é", "http://[::1]/a", "https://h/a b", "https://h_x/a"}
	for range 20000 {
		var b strings.Builder
		for range 1 + r.Intn(5) {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		refs = append(refs, b.String())
	}
	plain := 0
	for _, bs := range bases {
		base, err := url.Parse(bs)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			want := resolveByURL(base, ref)
			got := resolve(base, ref)
			if (got == nil) != (want == nil) || got != nil && !sameURL(got, want) {
				t.Fatalf("resolve(%q, %q) = %#v, want %#v", bs, ref, got, want)
			}
			if resolvePlain(base, strings.TrimSpace(ref)) != nil {
				plain++
			}
		}
	}
	if plain == 0 {
		t.Fatal("no link took the shortcut")
	}
	absolute := 0
	for _, ref := range refs {
		if resolveAbsolutePlain(strings.TrimSpace(ref)) != nil {
			absolute++
		}
	}
	if absolute < 100 {
		t.Fatalf("%d absolute links took their shortcut", absolute)
	}
	if resolvePlain(nil, "a") != nil {
		t.Error("a nil base takes the shortcut")
	}
}

// sameURL tells whether a and b hold the same fields (the user's by
// value).
func sameURL(a, b *url.URL) bool {
	x, y := *a, *b
	if (x.User == nil) != (y.User == nil) || x.User != nil && x.User.String() != y.User.String() {
		return false
	}
	x.User, y.User = nil, nil
	return x == y
}
