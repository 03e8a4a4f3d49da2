package content

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A page that writes "ü" as "u" and a combining diaeresis (U+0308), as
// text pasted from some editors does, gives "ü" in the text and the
// markdown; the HTML output keeps the page's form.
func TestComposedText(t *testing.T) {
	decomposed := "Besonders bei Babyschalen sollte gepru\u0308ft werden, ob die Gurtla\u0308nge ausreicht."
	body := []byte(`<html><head><title>Kindersitze im Test</title></head><body>
<nav><a href="/">Start</a> <a href="/tests">Tests</a></nav>
<article><h1>Kindersitze im Test</h1>
<p>` + decomposed + ` Ist der Gurt zu kurz, lässt sich eventuell eine Schale mit separater Basis montieren, die fest im Fahrzeug bleibt.</p>
<p>Die Tester haben in diesem Jahr zwanzig Sitze geprüft, von der Babyschale bis zum Sitz für Schulkinder, und elf davon empfehlen sie ohne Einschränkung.</p>
</article></body></html>`)
	doc, err := HTML(body, "https://example.org/test/kindersitze", Options{OnlyMainContent: true, IncludeHTML: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "Besonders bei Babyschalen sollte geprüft werden, ob die Gurtlänge ausreicht."
	if !strings.Contains(doc.Text, want) {
		t.Errorf("text lacks the composed sentence %q:\n%s", want, doc.Text)
	}
	if !strings.Contains(doc.Markdown, want) {
		t.Errorf("markdown lacks the composed sentence %q:\n%s", want, doc.Markdown)
	}
	if !strings.Contains(doc.HTML, "gepru\u0308ft") {
		t.Errorf("HTML output changed the page's form:\n%s", doc.HTML)
	}
	if got, want := doc.textWords, countWords(doc.Text); got != want {
		t.Errorf("words of the text: got %d, want %d", got, want)
	}
}

func TestComposedPassesNFC(t *testing.T) {
	for _, s := range []string{"", "plain ASCII text", "Grüße aus Köln – „Anführung“", "東京 ソウル Москва", "e\u0301"} {
		got := composed(s)
		if s == "e\u0301" {
			if got != "é" {
				t.Errorf("composed(%q) = %q, want %q", s, got, "é")
			}
			continue
		}
		if got != s {
			t.Errorf("composed(%q) = %q, want it unchanged", s, got)
		}
	}
}

// plainNFC passes the texts most pages write (dashes, quotes, CJK,
// Cyrillic) without norm's reading of every byte, and leaves to norm
// any text holding a combining mark, a character NFC replaces
// (U+2126 OHM SIGN, U+212B ANGSTROM SIGN, the CJK compatibility
// ideographs), a Hangul vowel or final jamo or an invalid byte.
func TestPlainNFC(t *testing.T) {
	for _, s := range []string{"", "plain ASCII text, longer than eight bytes", "Grüße aus Köln – „Anführung“ … ©",
		"東京 ソウル Москва Αθήνα", "한국어 텍스트", "PostgreSQL — the “manual”\u00a0•\u00a0→ 8.0"} {
		if !plainNFC(s) {
			t.Errorf("plainNFC(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"e\u0301", "x\u0323\u0307 marks", "10 \u2126", "\u212b", "\uf900", "\u1100\u1161",
		"\uac00\u11a8", "ok \xcc\x80", "cut \xe2\x80"} {
		if plainNFC(s) {
			t.Errorf("plainNFC(%q) = true, want false", s)
		}
		if composed(s) != norm.NFC.String(s) {
			t.Errorf("composed(%q) = %q, want norm's %q", s, composed(s), norm.NFC.String(s))
		}
	}
}

// plainNFC says true only of texts norm says are in NFC: every
// character it lets through keeps a text in NFC whatever stands before
// or after it (here: letters, a Hangul leading jamo and syllable that
// compose with what follows, combining marks and itself).
func TestPlainNFCAgreesWithNorm(t *testing.T) {
	around := []string{"e", "\u1100", "\uac00", "\u0301"}
	plain := 0
	for r := rune(0x300); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		c := string(r)
		if !plainStarter(c) {
			continue
		}
		plain++
		for _, x := range around {
			for _, s := range []string{c, x + c, c + x} {
				if plainNFC(s) && !norm.NFC.IsNormalString(s) {
					t.Fatalf("plainNFC(%q) = true, norm says it is not NFC", s)
				}
			}
		}
		if s := c + c; plainNFC(s) != norm.NFC.IsNormalString(s) {
			t.Fatalf("plainNFC(%q) = %v, norm says %v", s, plainNFC(s), norm.NFC.IsNormalString(s))
		}
	}
	if plain < 100000 {
		t.Errorf("%d plain characters from U+0300 up, want most", plain)
	}
}
