package content

import (
	"bytes"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// classWordInMap is what classWordIn tells, written with the strings
// functions and a map lookup for every word: the reference the filtered
// one must equal. Words are runs of ASCII letters and digits, cut again
// before a capital that follows a letter or digit in lower case
// ("shareBar"), and read lower-cased when they are at most 32 bytes.
func classWordInMap(v string, words map[string]bool) bool {
	runs := strings.FieldsFunc(v, func(r rune) bool { return r >= utf8.RuneSelf || !alnum(byte(r)) })
	for _, run := range runs {
		for len(run) > 0 {
			end := 1
			for end < len(run) && !(isUpper(run[end]) && !isUpper(run[end-1])) {
				end++
			}
			if end <= 32 && words[strings.ToLower(run[:end])] {
				return true
			}
			run = run[end:]
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

// labelPieces are the kinds of text the label tests trim and cut: letters,
// each byte and character of the cutsets, other punctuation, no-break
// space, the ellipsis, characters near them, broken bytes.
var labelPieces = []string{"a", "Z", "mehr", " ", "\t", "\n", ":", "!", ".", "?", "…", "»", "«", "›", "‹", "\"", "'",
	"„", "“", "”", "-", "–", "—", "|", ">", "*", "(", ")", "[", "]", ",", "\u00a0", "\u2026x", "\u2027", "é",
	"\xe2", "\xe2\x80", "\xff", "日"}

// TestLabelTrimAsBytes compares trimSet.trimLeft with bytes.TrimLeft and
// firstWordEnd with bytes.IndexAny on every sequence of up to three
// pieces and on random ones.
func TestLabelTrimAsBytes(t *testing.T) {
	check := func(s string) {
		t.Helper()
		b := []byte(s)
		for _, set := range []*trimSet{labelTrimSet, labelStartTrim} {
			if got, want := set.trimLeft(b), bytes.TrimLeft(b, set.cutset); string(got) != string(want) {
				t.Fatalf("trimLeft(%q) by %q = %q, bytes.TrimLeft %q", s, set.cutset, got, want)
			}
		}
		if got, want := firstWordEnd(b), bytes.IndexAny(b, " :!.?…\u00a0"); got != want {
			t.Fatalf("firstWordEnd(%q) = %d, bytes.IndexAny %d", s, got, want)
		}
	}
	overPieces(labelPieces, 10, check)
}

// overPieces calls check on "", on every sequence of one to three
// pieces and on 100,000 random sequences of up to most pieces.
func overPieces(pieces []string, most int, check func(string)) {
	check("")
	for _, a := range pieces {
		check(a)
		for _, b := range pieces {
			check(a + b)
			for _, c := range pieces {
				check(a + b + c)
			}
		}
	}
	rng := rand.New(rand.NewSource(20))
	for range 100000 {
		var s strings.Builder
		for range 1 + rng.Intn(most) {
			s.WriteString(pieces[rng.Intn(len(pieces))])
		}
		check(s.String())
	}
}

// TestCTAHintsAsTwoScans compares ctaHints with the two prefilters read
// one after the other, on texts made of their hints (whole, cut short,
// overlapping), near misses and other words.
func TestCTAHintsAsTwoScans(t *testing.T) {
	for _, h := range []*hints{socialHints, subscribeStems} {
		for c, one := range h.single {
			if one {
				t.Fatalf("a hint of one byte (%q): ctaHints reads pairs only", rune(c))
			}
		}
	}
	pieces := []string{" ", "a", "s", "su", "follow", "subscribe", "sign", "sign up", "twitter", "twitte",
		"facebook", "abonn", "abon", "iscriv", "assine", "subskryb", "suscr", "telegram", "tiktok", "x", "é", "\xff"}
	for _, names := range [][]string{socialNames, {"subscri", "sign up", "suscr", "abonn", "iscriv", "assine", "subskryb"}} {
		for _, n := range names {
			pieces = append(pieces, n, n[:len(n)-1], n[1:])
		}
	}
	check := func(s string) {
		t.Helper()
		b := []byte(s)
		social, subscribe := ctaHints(b)
		if social != socialHints.inBytes(b) || subscribe != subscribeStems.inBytes(b) {
			t.Fatalf("ctaHints(%q) = %v %v, the two scans %v %v", s, social, subscribe,
				socialHints.inBytes(b), subscribeStems.inBytes(b))
		}
	}
	overPieces(pieces, 12, check)
}

// TestCollapseRunsAsRegexp compares collapseRuns with a regular
// expression that turns each run of spaces, tabs and line breaks into
// one space, on texts of those, of other white space and of words.
func TestCollapseRunsAsRegexp(t *testing.T) {
	runs := regexp.MustCompile(`[ \n\r\t]+`)
	pieces := []string{" ", "  ", "\n", "\r\n", "\t", "\f", "\v", "\u00a0", "a", "word", "é", "\xff", " x ", "\n   "}
	for _, c := range []byte{' ', '\n', '\r', '\t'} {
		if !runSpaces[c] || !isRunSpace(c) {
			t.Fatalf("%q is not read as a space", c)
		}
	}
	overPieces(pieces, 12, func(s string) {
		if got, want := collapseRuns(s), runs.ReplaceAllString(s, " "); got != want {
			t.Fatalf("collapseRuns(%q) = %q, want %q", s, got, want)
		}
	})
}
