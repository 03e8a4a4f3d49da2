package corpus

import (
	"math"
	"reflect"
	"testing"
)

func TestHalfIsFNV1aParity(t *testing.T) {
	// FNV-1a 32 written out: offset basis, then xor and multiply by the
	// prime for each byte.
	fnv1a := func(s string) uint32 {
		h := uint32(2166136261)
		for i := 0; i < len(s); i++ {
			h ^= uint32(s[i])
			h *= 16777619
		}
		return h
	}
	seen := map[string]int{}
	for _, name := range []string{"0001", "0002", "0042", "4913", "wikipedia-2", "nytimes-5", "abc.html", ""} {
		want := HalfA
		if fnv1a(name)%2 == 1 {
			want = HalfB
		}
		if got := Half(name); got != want {
			t.Errorf("Half(%q) = %s, want %s", name, got, want)
		}
		seen[Half(name)]++
	}
	if seen[HalfA] == 0 || seen[HalfB] == 0 {
		t.Errorf("every name in one half: %v", seen)
	}
}

func TestWordsLikePythonW(t *testing.T) {
	// What Python's re.findall(r"\w+", s.lower()) gives: '_' and letters
	// and numbers of any script are word characters, Devanagari's vowel
	// signs and virama (combining marks) are not, a run of ideographs is
	// one word.
	got := Words("Hello, WORLD_x 3.5 naïve 東京都 हिन्दी ½ ²")
	want := []string{"hello", "world_x", "3", "5", "naïve", "東京都", "ह", "न", "द", "½", "²"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

func TestWordF1CountsRepeats(t *testing.T) {
	// Predicted "a a a b" against reference "a b c": overlap a×1 + b×1 = 2,
	// precision 2/4, recall 2/3.
	f1, p, r := WordF1("a a a b", "A, b; c")
	if p != 0.5 || math.Abs(r-2.0/3) > 1e-12 {
		t.Fatalf("P %v R %v, want 0.5 and 2/3", p, r)
	}
	if want := 2 * 0.5 * (2.0 / 3) / (0.5 + 2.0/3); math.Abs(f1-want) > 1e-12 {
		t.Errorf("F1 %v, want %v", f1, want)
	}
	if f1, _, _ := WordF1("", ""); f1 != 1 {
		t.Errorf("two empty texts: F1 %v, want 1", f1)
	}
	if f1, _, _ := WordF1("something", ""); f1 != 0 {
		t.Errorf("text where nothing is wanted: F1 %v, want 0", f1)
	}
}

func TestScoreEvalSums(t *testing.T) {
	p := &Page{Corpus: Eval, With: []string{"main text", "second line"}, Without: []string{"Share this"}}
	s := p.Score("main   text\nShare this", true)
	if s.TP != 1 || s.FN != 1 || s.FP != 1 || s.TN != 0 {
		t.Fatalf("got tp %d fn %d fp %d tn %d, want 1 1 1 0", s.TP, s.FN, s.FP, s.TN)
	}
	failed := p.Score("main text", false)
	if failed.TP != 0 || failed.FN != 2 || failed.TN != 1 {
		t.Errorf("a failed extraction: got tp %d fn %d tn %d, want 0 2 1", failed.TP, failed.FN, failed.TN)
	}
	sum := Sum(Eval, []Score{s, failed})
	// tp 1, fn 3, fp 1: P 1/2, R 1/4.
	if sum.P != 0.5 || sum.R != 0.25 {
		t.Errorf("Sum: P %v R %v, want 0.5 0.25", sum.P, sum.R)
	}
}
