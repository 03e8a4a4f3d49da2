package primitive

import "testing"

// FuzzNormalizeURL: never panics, and a normalised URL normalises to itself.
func FuzzNormalizeURL(f *testing.F) {
	for _, seed := range []string{
		"http://example.com", "HTTPS://Example.COM:443/a/../b/./c/?utm_source=x&b=2&a=1#frag",
		"http://[::1]:80/%7e/%2F", "http://xn--bcher-kva.example/", "http://ex ample.com/", "http://a.b./c//d/",
		"http://user:pass@host/", "http://host/?", "http://host/%zz",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		once, err := NormalizeURL(raw)
		if err != nil {
			return
		}
		twice, err := NormalizeURL(once)
		if err != nil || twice != once {
			t.Fatalf("NormalizeURL(%q) = %q, but NormalizeURL(%q) = %q, %v", raw, once, once, twice, err)
		}
	})
}
