package content

import (
	"math/rand"
	"path"
	"strings"
	"testing"
)

// containsFoldByteByByte is containsFold as it was: every place of s
// tried in turn.
func containsFoldByteByByte(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// TestContainsFoldAsByteByByte: containsFold, which jumps between the
// places of sub's first letter, answers as the byte-by-byte search on
// random style values.
func TestContainsFoldAsByteByByte(t *testing.T) {
	pieces := []string{"n", "N", "o", "O", "e", "E", "h", "H", "i", "d", "D", "en", "none", "NONE", "nOnE", "hidden", "HIDDEN",
		"display:", " ", ";", "\u00ff", "\x0e", "N\x0fNE", "non", "hidde", "n\x00ne"}
	rng := rand.New(rand.NewSource(7))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(12) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		for _, sub := range []string{"none", "hidden", "n"} {
			if got, want := containsFold(s, sub), containsFoldByteByByte(s, sub); got != want {
				t.Fatalf("containsFold(%q, %q) = %v, want %v", s, sub, got, want)
			}
		}
	}
}

// docLinkIndexAny is docLink as it was, cut at the first '?' or '#' by
// strings.IndexAny.
func docLinkIndexAny(href string) bool {
	href = strings.TrimSpace(href)
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		href = href[:i]
	}
	ext := path.Ext(href)
	if len(ext) < 3 || len(ext) > 5 {
		return false
	}
	return docExtensions[strings.ToLower(ext)]
}

// TestDocLinkAsIndexAny: docLink cut by two IndexByte calls answers as
// the cut at the first of '?' and '#'.
func TestDocLinkAsIndexAny(t *testing.T) {
	pieces := []string{"/", "a", ".", ".pdf", ".PDF", ".xlsx", "?", "#", "?x=.pdf", "#.doc", " ", "x.csv", ".zip?", "#a?b.pdf"}
	rng := rand.New(rand.NewSource(7))
	for range 200000 {
		var b strings.Builder
		for range rng.Intn(8) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		h := b.String()
		if got, want := docLink(h), docLinkIndexAny(h); got != want {
			t.Fatalf("docLink(%q) = %v, want %v", h, got, want)
		}
	}
}
