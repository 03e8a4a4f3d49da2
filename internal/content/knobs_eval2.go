package content

import (
	"os"
	"unicode/utf8"
)

// Throw-away knobs of branch i20-eval2 (reverted before the branch ends).
var (
	knobFig   = os.Getenv("EVAL2_FIG") != ""
	knobPopup = os.Getenv("EVAL2_POPUP") != ""
	knobStop  = os.Getenv("EVAL2_STOP") != ""
)

// sentenceEnd: t ends a sentence, or holds a sentence end followed by a space, with
// the full stop, question or exclamation mark of any script.
func sentenceEnd(t string) bool {
	for i, r := range t {
		if stopRune(r) {
			rest := t[i+utf8.RuneLen(r):]
			if rest == "" || rest[0] == ' ' || stopRune(firstRune(rest)) || cjkStop(r) {
				return true
			}
		}
	}
	return false
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func stopRune(r rune) bool {
	switch r {
	case '.', '!', '?', '…', '。', '！', '？', '։', '।', '۔', '؟', '።', '｡':
		return true
	}
	return false
}

func cjkStop(r rune) bool { return r == '。' || r == '！' || r == '？' || r == '｡' }
