package corpus

import (
	"strings"
	"unicode"
)

// Score is one page's score, or a set of pages' (Sum).
type Score struct {
	F1, P, R       float64
	TP, FN, FP, TN int // eval: snippet counts
}

// Score scores an extracted text against the page's ground truth, each
// corpus by its own rule:
//
//   - readability: multiset F1 of 4-word shingles of Tokens against the
//     text of expected.html;
//   - eval: trafilatura's snippet counts (a wanted snippet found is a true
//     positive, missed a false negative; an unwanted one found a false
//     positive), on white-space-normalised text;
//   - wcxb: WCXB's word F1 (WordF1) against main_content.
//
// ok false (the extractor failed) scores as an empty text.
func (p *Page) Score(text string, ok bool) Score {
	if !ok {
		text = ""
	}
	var s Score
	switch p.Corpus {
	case Readability:
		s.F1, s.P, s.R = ShingleF1(Tokens(text), Tokens(p.Expected))
	case Eval:
		t := NormSpace(text)
		for _, w := range p.With {
			if t != "" && strings.Contains(t, w) {
				s.TP++
			} else {
				s.FN++
			}
		}
		for _, w := range p.Without {
			if t != "" && strings.Contains(t, w) {
				s.FP++
			} else {
				s.TN++
			}
		}
	case WCXB:
		s.F1, s.P, s.R = WordF1(text, p.Expected)
	}
	return s
}

// Sum is the score of a set of pages of one corpus: the mean of the
// per-page F1, P and R for readability and wcxb; for eval, P, R and F1 of
// the snippet counts summed over the pages (trafilatura's rule). An empty
// set scores zero.
func Sum(corpus string, scores []Score) Score {
	var s Score
	if len(scores) == 0 {
		return s
	}
	for _, x := range scores {
		s.F1, s.P, s.R = s.F1+x.F1, s.P+x.P, s.R+x.R
		s.TP, s.FN, s.FP, s.TN = s.TP+x.TP, s.FN+x.FN, s.FP+x.FP, s.TN+x.TN
	}
	if corpus != Eval {
		n := float64(len(scores))
		s.F1, s.P, s.R = s.F1/n, s.P/n, s.R/n
		return s
	}
	s.F1, s.P, s.R = 0, 0, 0
	if s.TP+s.FP > 0 {
		s.P = float64(s.TP) / float64(s.TP+s.FP)
	}
	if s.TP+s.FN > 0 {
		s.R = float64(s.TP) / float64(s.TP+s.FN)
	}
	if s.P+s.R > 0 {
		s.F1 = 2 * s.P * s.R / (s.P + s.R)
	}
	return s
}

// Words splits s as WCXB's scorer does: lower-cased, then the runs of
// word characters of Python's `\w+` (letters, numbers and '_'; a
// combining mark is not a word character there, so it splits, and a run
// of ideographs is one word).
func Words(s string) []string {
	s = strings.ToLower(s)
	var out []string
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
		if word && start < 0 {
			start = i
		} else if !word && start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// WordF1 is WCXB's page score: the multisets of Words of got and want,
// overlap = Σ min(count in got, count in want), precision = overlap /
// words of got, recall = overlap / words of want. Two empty texts score 1.
func WordF1(got, want string) (f1, precision, recall float64) {
	g, w := Words(got), Words(want)
	if len(g) == 0 && len(w) == 0 {
		return 1, 1, 1
	}
	if len(g) == 0 || len(w) == 0 {
		return 0, 0, 0
	}
	counts := make(map[string]int, len(w))
	for _, t := range w {
		counts[t]++
	}
	overlap := 0
	for _, t := range g {
		if counts[t] > 0 {
			counts[t]--
			overlap++
		}
	}
	if overlap == 0 {
		return 0, 0, 0
	}
	precision = float64(overlap) / float64(len(g))
	recall = float64(overlap) / float64(len(w))
	return 2 * precision * recall / (precision + recall), precision, recall
}

// Tokens lower-cases s and splits it into words for the readability
// score: runs of letters and digits. Punctuation and white space separate
// words, so differences in spacing around inline tags or punctuation do
// not count; format characters (a soft hyphen) are skipped. Ideographs
// (written without spaces) are one token each.
func Tokens(s string) []string {
	var out []string
	start := -1
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1 // a soft hyphen is not shown: it joins the letters around it
		}
		return r
	}, strings.ToLower(s))
	for i, r := range s {
		ideo := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
		word := (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) && !ideo
		if !word && start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
		if ideo {
			out = append(out, string(r))
		} else if word && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// ShingleF1 compares the multisets of 4-word shingles of got and want:
// a shingle repeated k times must be matched k times. Texts shorter than
// four words form one shingle.
func ShingleF1(got, want []string) (f1, precision, recall float64) {
	g, w := shingles(got), shingles(want)
	var ng, nw, common int
	for _, c := range g {
		ng += c
	}
	for s, c := range w {
		nw += c
		common += min(c, g[s])
	}
	if ng == 0 && nw == 0 {
		return 1, 1, 1
	}
	if ng == 0 || nw == 0 || common == 0 {
		return 0, 0, 0
	}
	precision = float64(common) / float64(ng)
	recall = float64(common) / float64(nw)
	return 2 * precision * recall / (precision + recall), precision, recall
}

func shingles(t []string) map[string]int {
	m := make(map[string]int)
	if len(t) == 0 {
		return m
	}
	if len(t) < 4 {
		m[strings.Join(t, " ")]++
		return m
	}
	for i := 0; i+4 <= len(t); i++ {
		m[t[i]+" "+t[i+1]+" "+t[i+2]+" "+t[i+3]]++
	}
	return m
}
