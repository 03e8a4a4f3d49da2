package content

import (
	"math/rand"
	"strings"
	"testing"
)

// withinTexts are the pieces the tests below make texts of: ASCII words
// and runs of white space, control characters, commas, multi-byte
// characters and white space, CJK.
var withinTexts = []string{"word", " ", "   \n ", "a, b", "€", "日本語のテキスト", "\u00a0", "\u2003", "\x01", "\v", "x",
	"\t", "ab,cd", "é", strings.Repeat("x ", 40), strings.Repeat("long", 30), ""}

func withinText(rng *rand.Rand) string {
	var b strings.Builder
	for k := rng.Intn(40); k > 0; k-- {
		b.WriteString(withinTexts[rng.Intn(len(withinTexts))])
	}
	return b.String()
}

// TestTallies: tallies give countText's counts of every text, whether
// recorded, recorded earlier than the last found, changed or never
// recorded, and count(s) is countText(s) on any stats; a look-up passes
// over a bounded number of entries.
func TestTallies(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for range 2000 {
		var tl tallies
		texts := make([]string, rng.Intn(40))
		for i := range texts {
			texts[i] = withinText(rng)
			if len(texts[i]) >= tallyMin && rng.Intn(4) > 0 {
				var st stats
				countText(texts[i], 0, &st)
				tl.add(texts[i], st.length, st.commas)
			}
		}
		for walk := range 3 {
			tl.rewind()
			var got, want stats
			for range len(texts) {
				var s string
				switch k := rng.Intn(10); {
				case k < 6 && len(texts) > 0:
					s = texts[rng.Intn(len(texts))] // maybe out of order
				case k < 8:
					s = withinText(rng) // not recorded
				default:
					s = strings.Repeat(" x,", 10+walk) // equal content, another string
				}
				link := []float64{0, 0.3, 1}[rng.Intn(3)]
				tl.count(s, link, &got)
				countText(s, link, &want)
				if got != want {
					t.Fatalf("%q: tallies %+v, countText %+v", s, got, want)
				}
			}
			if tl.passed > 4*len(tl.list)+64+len(tl.list) {
				t.Fatalf("look-ups passed %d entries of %d", tl.passed, len(tl.list))
			}
		}
	}
	// A nil tallies counts.
	var nt *tallies
	var got, want stats
	s := strings.Repeat("word, ", 20)
	nt.count(s, 1, &got)
	countText(s, 1, &want)
	if got != want {
		t.Fatalf("nil tallies %+v, countText %+v", got, want)
	}
}

// TestTextCountsFind: find gives countWords of every text, whether in
// the list, before the last found, or not there at all, and a walk's
// look-ups pass over a bounded number of texts.
func TestTextCountsFind(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	for range 2000 {
		var tc textCounts
		texts := make([]string, rng.Intn(40))
		for i := range texts {
			texts[i] = withinText(rng)
			if rng.Intn(4) > 0 {
				tc.list = append(tc.list, textCount{texts[i], countWords(texts[i])})
			}
		}
		for range 3 {
			tc.rewind()
			for range len(texts) {
				var s string
				if rng.Intn(3) > 0 && len(texts) > 0 {
					s = texts[rng.Intn(len(texts))]
				} else {
					s = withinText(rng)
				}
				if got, want := tc.find(s), countWords(s); got != want {
					t.Fatalf("%q: find %d, countWords %d", s, got, want)
				}
			}
			if tc.passed > 4*len(tc.list)+64 {
				t.Fatalf("look-ups passed %d texts of %d", tc.passed, len(tc.list))
			}
		}
	}
	var nt *textCounts
	if s := "a few words, and more of them"; nt.find(s) != countWords(s) {
		t.Fatal("nil textCounts")
	}
}
