package detect

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// shingleWords is the length of a text shingle in words.
const shingleWords = 3

// words splits normalised text into lower-cased words: runs of letters
// and digits, each ideograph (Han, kana, Hangul, Thai) a word of its
// own since those scripts are written without spaces.
func words(s string, buf []string) []string {
	out := buf[:0]
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		word := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		ideo := r >= 0x0E00 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
		if !word || ideo {
			if start >= 0 {
				out = append(out, strings.ToLower(s[start:i]))
				start = -1
			}
			if ideo {
				out = append(out, s[i:i+size])
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

// shingler computes the distinct shingles of block texts, reusing its
// buffers.
type shingler struct {
	words []uint64
	out   []uint64
}

// of returns the distinct 3-word shingles of text, or one shingle of all
// its words when it has fewer. Words are lower-cased and every run of
// digits reads "#": relocation looks for the same region, and dates,
// counters and figures that moved on must not hide it. The slice is
// reused by the next call.
func (s *shingler) of(text string) []uint64 {
	s.words = wordHashes(text, s.words)
	s.out = s.out[:0]
	w := s.words
	if len(w) == 0 {
		return s.out
	}
	n := max(len(w)-shingleWords+1, 1)
	for i := 0; i < n; i++ {
		h := uint64(fnvOffset)
		for j := i; j < i+shingleWords && j < len(w); j++ {
			h = (h ^ w[j]) * fnvPrime
			h ^= h >> 29
		}
		s.out = append(s.out, h)
	}
	slices.Sort(s.out)
	s.out = slices.Compact(s.out)
	return s.out
}

// wordHashes hashes the words of s as words does, except that a run of
// digits, a month or weekday name and "am"/"pm" read "#", and runs of
// such words one "#": dates, times, counters and figures look alike
// whatever their value or format. It does not allocate.
func wordHashes(s string, buf []uint64) []uint64 {
	out := buf[:0]
	var word [12]byte // the word lower-cased, while short
	n := 0
	h, in, digits := uint64(fnvOffset), false, false
	numeric := func() {
		if len(out) == 0 || out[len(out)-1] != hashNumber {
			out = append(out, hashNumber)
		}
	}
	flush := func() {
		switch {
		case !in:
		case digits && n == 0 || n > 0 && n <= len(word) && dateWords[string(word[:n])]:
			numeric()
		default:
			out = append(out, h)
		}
		h, in, digits, n = fnvOffset, false, false, 0
	}
	add := func(r rune) {
		h = (h ^ uint64(r)) * fnvPrime
		if n < len(word) && r < utf8.RuneSelf {
			word[n] = byte(r)
		}
		n++
		in = true
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		switch {
		case r >= '0' && r <= '9' || r >= utf8.RuneSelf && unicode.IsDigit(r):
			if n == 0 {
				digits, in = true, true
			} else if !digits {
				// Digits inside a word: "q3", "b2b".
				h = (h ^ '#') * fnvPrime
				digits = true
			}
		case r >= 'a' && r <= 'z':
			if digits && n == 0 {
				flush()
			}
			add(r)
			digits = false
		case r >= 'A' && r <= 'Z':
			if digits && n == 0 {
				flush()
			}
			add(r + 'a' - 'A')
			digits = false
		case r >= 0x0E00 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai):
			flush()
			out = append(out, (fnvOffset^uint64(r))*fnvPrime)
		case r >= utf8.RuneSelf && unicode.IsLetter(r):
			if digits && n == 0 {
				flush()
			}
			add(unicode.ToLower(r))
			n = len(word) + 1 // not ASCII: never a date word
			digits = false
		default:
			flush()
		}
	}
	flush()
	return out
}

// hashNumber is the hash of "#", the word of numbers and dates.
var hashNumber = fnvString(fnvOffset, "#")

// dateWords are the words that read as numbers for relocation.
var dateWords = func() map[string]bool {
	m := set("am", "pm")
	for w := range months {
		m[w] = true
	}
	for w := range weekdays {
		m[w] = true
	}
	return m
}()

// FNV-1a, 64 bits, written out to hash words without allocating.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}
