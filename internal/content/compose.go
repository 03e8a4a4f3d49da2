package content

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// composeOutputs puts doc's text and markdown in Unicode's composed form
// (NFC) and tells whether that changed the text. A page may write "ü" as
// "u" and a combining diaeresis, which a browser shows as "ü": in that
// form a search for the word, or a comparison with text typed in,
// misses it, and word splitters that take a combining mark for a
// separator cut the word in two. The HTML output stays as the page
// wrote it.
func composeOutputs(doc *Document) bool {
	doc.Markdown = composed(doc.Markdown)
	t := composed(doc.Text)
	if t == doc.Text {
		return false
	}
	doc.Text = t
	return true
}

// composed returns s in NFC. Most text is passed over by plainNFC; the
// rest is checked and composed by x/text's norm.
func composed(s string) string {
	if plainNFC(s) || norm.NFC.IsNormalString(s) {
		return s
	}
	return norm.NFC.String(s)
}

// plainNFC tells whether every character of s is a plain starter: under
// U+0300 (ASCII, Latin-1 and the Latin extensions: none composes with a
// character before it, and each is in NFC), or a character of NFC's
// quick check "yes" of combining class 0 that composes with nothing
// before it (checked once a character by norm: the dashes, quotes and
// symbols of most texts, CJK, Cyrillic). Such a text is in NFC, as
// norm.NFC.IsNormalString says, without norm's reading of every byte
// (that was 1.6 % of a crawl's instructions: the markdown and text of
// nearly every page hold a character above U+0300). It says false for
// anything else, a combining mark or an invalid byte among them, and
// composed asks norm then. ASCII goes eight bytes at a time.
func plainNFC(s string) bool {
	// The plain characters found so far, one a slot by the low bits.
	var seen [16]rune
	for i := 0; i < len(s); {
		for ; len(s)-i >= 8 && load8(s[i:i+8])&highBits == 0; i += 8 {
		}
		if i == len(s) {
			break
		}
		if s[i] < 0xCC { // ASCII or the lead byte of a character under U+0300
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		if seen[r&15] != r {
			if !plainStarter(s[i : i+size]) {
				return false
			}
			seen[r&15] = r
		}
		i += size
	}
	return true
}

// plainStarter tells whether c, one character, is in NFC (quick check
// "yes") with combining class 0 and composes with no character before
// it: norm's quick check then treats it as it does ASCII, whatever
// surrounds it. BoundaryBefore says class 0 and not "maybe"; a character
// of quick check "no" is not in NFC alone, which IsNormalString says.
func plainStarter(c string) bool {
	return norm.NFC.PropertiesString(c).BoundaryBefore() && norm.NFC.IsNormalString(c)
}
