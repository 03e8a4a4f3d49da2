package content

import "golang.org/x/text/unicode/norm"

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

// composed returns s in NFC. Text below U+0300 is in NFC already, so
// most text is passed over by its bytes alone.
func composed(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xCC { // the first byte of U+0300 and above
			if norm.NFC.IsNormalString(s) {
				return s
			}
			return norm.NFC.String(s)
		}
	}
	return s
}
