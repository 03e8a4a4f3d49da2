package content

import (
	"strings"
	"testing"
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
