package content

import (
	"bytes"
	"math/rand"
	"testing"
)

// hasRawStartSlow is hasRawStart by its definition: some '<' followed
// by "script", "style" or "svg" in any ASCII case.
func hasRawStartSlow(b []byte) bool {
	for i := range b {
		if b[i] != '<' {
			continue
		}
		rest := bytes.ToLower(b[i+1:])
		if bytes.HasPrefix(rest, []byte("script")) || bytes.HasPrefix(rest, []byte("style")) ||
			bytes.HasPrefix(rest, []byte("svg")) {
			// bytes.ToLower folds beyond ASCII; the prefixes are ASCII,
			// and a non-ASCII byte never lowers to one here but for the
			// Kelvin sign, which the pieces below do not hold.
			return true
		}
	}
	return false
}

// TestHasRawStart: rawCuts skips the bodies without a <script>, <style>
// or <svg> start tag in any ASCII case, and only those.
func TestHasRawStart(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{"", false},
		{"<p>script style</p>", false},
		{"<span><strong><sub>", false},
		{"<s", false},
		{"<styl", false},
		{"<style", true},
		{"<STYLE>", true},
		{"<ScRiPt src=a>", true},
		{"<p>a</p><sCript>", true},
		{"</script>", false},
		{"< script>", false},
		{"<scripx><stylx>", false},
		{"<sv", false},
		{"<svgx>", true}, // read tag by tag, and no cut
		{"<p><SvG viewBox=a>", true},
	} {
		if got := hasRawStart([]byte(c.body)); got != c.want {
			t.Errorf("hasRawStart(%q) = %v, want %v", c.body, got, c.want)
		}
	}
	pieces := []string{"<", "s", "S", "abcdefg", "\x00", "\xff", "\x1c", "\x3c\x53", "c", "C", "r", "i", "p", "t", "T", "y", "Y", "l", "e", "E", ">", " ", "<s", "<S", "cript", "tyle", "<p>", "v", "V", "g", "G", "vg"}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		var b []byte
		for range r.Intn(40) {
			b = append(b, pieces[r.Intn(len(pieces))]...)
		}
		if got, want := hasRawStart(b), hasRawStartSlow(b); got != want {
			t.Fatalf("hasRawStart(%q) = %v, want %v", b, got, want)
		}
	}
}

// TestRawCutsWithoutRawStart: a page without script or style start tags
// has no cut (the tag-by-tag reading is skipped), and one with them
// keeps its cuts.
func TestRawCutsWithoutRawStart(t *testing.T) {
	page := []byte(`<html><head><title>a</title></head><body><p class="x">a <span>b</span></p><textarea>c</textarea></body></html>`)
	if cuts := rawCuts(page); cuts != nil {
		t.Errorf("cuts %v, want none", cuts)
	}
	sameTreeButRaw(t, page)
	page = append(page, "<STYLE>p{}</STYLE>"...)
	if cuts := rawCuts(page); len(cuts) != 1 {
		t.Errorf("cuts %v, want one", cuts)
	}
	sameTreeButRaw(t, page)
}
