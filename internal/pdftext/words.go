package pdftext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ligatures spells out the Latin ligatures that a font's ToUnicode map may
// give its ligature glyphs: "ﬁle" is the word "file".
var ligatures = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st")

// spellLigatures spells out the ligatures of s. The test for their first
// two bytes (U+FB00 to U+FB06 are EF AC 80 to EF AC 86) spares the
// replacer, which is slow, on the text of nearly every word.
func spellLigatures(s string) string {
	if !strings.Contains(s, "\xef\xac") {
		return s
	}
	return ligatures.Replace(s)
}

// Hyphens that may end a line inside a word: the ASCII one, U+2010 and
// the soft hyphen, which only ever marks a break.
const (
	hyphenMinus = "-"
	hyphen      = "\u2010"
	softHyphen  = "\u00ad"
)

// mendHyphens joins the words that typesetting broke across lines: where a
// line of a paragraph ends in a letter and a hyphen and the next line of
// the same paragraph starts with a lower-case letter, the two halves
// become one word at the end of the first line ("Refer-" / "ence" reads
// "Reference"). The hyphen stays where the break was most likely at a
// compound's own hyphen, which is where TeX and word processors break
// compounds: when the word has a hyphen elsewhere too, or when the
// document writes the joined word with the hyphen and never without
// ("language-" / "specific" stays "language-specific"). Paragraphs
// (separated by a blank line) are left apart, so a word is never joined
// across pages.
func mendHyphens(text string) string {
	if !strings.Contains(text, hyphenMinus+"\n") && !strings.Contains(text, hyphen+"\n") && !strings.Contains(text, softHyphen+"\n") {
		return text
	}
	vocab := vocabulary(text)
	paras := strings.Split(text, "\n\n")
	for i, p := range paras {
		if !strings.Contains(p, "\n") {
			continue
		}
		lines := strings.Split(p, "\n")
		out := lines[:0]
		for _, l := range lines {
			if n := len(out); n > 0 {
				if joined, rest, ok := mend(out[n-1], l, vocab); ok {
					out[n-1] = joined
					if rest == "" {
						continue
					}
					l = rest
				}
			}
			out = append(out, l)
		}
		paras[i] = strings.Join(out, "\n")
	}
	return strings.Join(paras, "\n\n")
}

// mend joins the hyphenated word at the end of line to the first word of
// next, returning the line with the whole word and what remains of next;
// ok is false when line does not end in a broken word.
func mend(line, next string, vocab map[string]bool) (joined, rest string, ok bool) {
	start := strings.LastIndexByte(line, ' ') + 1
	last := line[start:]
	var stem, mark string
	for _, h := range []string{hyphenMinus, hyphen, softHyphen} {
		if s, found := strings.CutSuffix(last, h); found {
			stem, mark = s, h
			break
		}
	}
	r, _ := utf8.DecodeLastRuneInString(stem)
	if stem == "" || !unicode.IsLetter(r) {
		return "", "", false
	}
	first, rest, _ := strings.Cut(strings.TrimLeft(next, " "), " ")
	if r, _ := utf8.DecodeRuneInString(first); !unicode.IsLower(r) {
		return "", "", false
	}
	if mark == softHyphen || !compound(stem, first, vocab) {
		mark = ""
	}
	return line[:start] + stem + mark + first, strings.TrimLeft(rest, " "), true
}

// compound reports whether the word broken into stem and first keeps its
// hyphen: it has another one ("gri-set-command-" / "postarguments"), or
// the document writes it with the hyphen elsewhere and never without.
func compound(stem, first string, vocab map[string]bool) bool {
	// The end of stem that is a word, hyphens within it included
	// ("gri-set-command"; "label" of "xref.label-").
	head := stem
	if i := strings.LastIndexFunc(stem, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }); i >= 0 {
		_, n := utf8.DecodeRuneInString(stem[i:])
		head = stem[i+n:]
	}
	head = strings.TrimLeft(head, "-")
	tail := first
	if k := strings.IndexFunc(first, func(r rune) bool { return !unicode.IsLetter(r) }); k >= 0 {
		tail = first[:k]
	}
	if strings.Contains(head, "-") {
		// TeX breaks a word that has a hyphen of its own only there.
		return true
	}
	return vocab[strings.ToLower(head+"-"+tail)] && !vocab[strings.ToLower(head+tail)]
}

// vocabulary is the set of the document's words in lower case: runs of
// letters, with hyphens inside them ("language-specific"), but not a
// hyphen that ends a line.
func vocabulary(text string) map[string]bool {
	vocab := map[string]bool{}
	// The word is built in lower case in a reused buffer and looked up
	// before it is stored, so that only a new word allocates.
	var w []byte
	flush := func() {
		if len(w) > 0 && !vocab[string(w)] {
			vocab[string(w)] = true
		}
		w = w[:0]
	}
	prevLetter := false
	for i, r := range text {
		switch {
		case unicode.IsLetter(r):
			w = utf8.AppendRune(w, unicode.ToLower(r))
			prevLetter = true
			continue
		case r == '-' && prevLetter:
			if n, _ := utf8.DecodeRuneInString(text[i+1:]); unicode.IsLetter(n) {
				w = append(w, '-')
				prevLetter = false
				continue
			}
		}
		flush()
		prevLetter = false
	}
	flush()
	return vocab
}
