package content

import (
	"math/rand"
	"strings"
	"testing"
)

// classWordInMap is classWordIn as it was before wordSet, a map lookup
// for every word: the reference the filtered one must equal.
func classWordInMap(v string, words map[string]bool) bool {
	var word [32]byte
	for i := 0; i < len(v); {
		for i < len(v) && !alnum(v[i]) {
			i++
		}
		start := i
		for i < len(v) && alnum(v[i]) && !(i > start && isUpper(v[i]) && !isUpper(v[i-1])) {
			i++
		}
		if i == start || i-start > len(word) {
			continue
		}
		n := copy(word[:], v[start:i])
		for j := range n {
			if isUpper(word[j]) {
				word[j] += 'a' - 'A'
			}
		}
		if words[string(word[:n])] {
			return true
		}
	}
	return false
}

// TestClassWordInAsMap compares classWordIn with the map lookup on class
// values made of the sets' words (in any case, camel-cased, cut short,
// lengthened, with digits) and other words, joined by the separators
// class names use.
func TestClassWordInAsMap(t *testing.T) {
	sets := []*wordSet{pageBoilerWords, pageHeaderWords, leadWords}
	var pieces []string
	for _, s := range sets {
		for w := range s.words {
			pieces = append(pieces, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:], w[:len(w)-1], w+"s",
				"x"+w, w+"2", "2"+w)
		}
	}
	pieces = append(pieces, "", "a", "A", "9", "sect1", "navheader", "toc", "Title", "titlepage", "eñe",
		strings.Repeat("n", 32), strings.Repeat("n", 33), "nav"+strings.Repeat("x", 30), "ÄDS")
	seps := []string{" ", "-", "_", "\t", "\n", "", "  ", ":", "é"}
	check := func(v string) {
		t.Helper()
		for i, s := range sets {
			if got, want := classWordIn(v, s), classWordInMap(v, s.words); got != want {
				t.Fatalf("set %d: classWordIn(%q) = %v, the map lookup %v", i, v, got, want)
			}
		}
	}
	for _, a := range pieces {
		check(a)
		for _, sep := range seps {
			check(a + sep + "sect1")
			check("Content" + sep + a)
		}
	}
	rng := rand.New(rand.NewSource(20))
	for range 200000 {
		var b strings.Builder
		for range 1 + rng.Intn(5) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
			b.WriteString(seps[rng.Intn(len(seps))])
		}
		check(b.String())
	}
	// Every byte as the first of a word: the filter's lower-casing.
	for c := 0; c < 256; c++ {
		for _, w := range []string{"av", "ds", "eader", "ead"} {
			check(string([]byte{byte(c)}) + w)
		}
	}
}
