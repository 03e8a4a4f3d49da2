package detect

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// FuzzNormalize: Normalize never panics, keeps valid UTF-8 valid, and is
// idempotent (normalised text normalises to itself).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "Updated Nov 23, 2026 10:42 AM", "1,234 views (5)", "[1", "a.[b]", "DambrotNovember 6",
		"09:17:332022-11-24", "http://x/?sid=9f86d081884c7d659a2feaa0c55ad015", "(", ")", "2026-13-45T99:99", "Lafuente/June 12",
		`<time datetime="2010-06-03">June 3, 2010</time>`, "23-26 March 2026", "March 23–26, 2026", "a<b>c</b>3>2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if utf8.ValidString(s) && !utf8.ValidString(n) {
			t.Fatalf("Normalize(%q) = %q, not UTF-8", s, n)
		}
		if again := Normalize(n); again != n {
			t.Fatalf("Normalize not idempotent: %q → %q → %q", s, n, again)
		}
	})
}

// FuzzDetect runs the whole detection on arbitrary HTML: nothing panics,
// a region relocates in its own page, and the page compares unchanged.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"", "<p>earnings</p>", newIRPage().html(), "<table><tr><td>earnings<td>1<tr><td>x</table>",
		"<ul><li><a href='a.pdf'>earnings</a><li><img src=x></ul><aside>earnings</aside>",
		"<nav>earnings</nav><footer>earnings</footer>", "<div class='sidebar no'><main>earnings</main></div>",
	} {
		f.Add(s, "earnings")
	}
	f.Fuzz(func(t *testing.T, page, keyword string) {
		if len(page) > 1<<16 {
			return
		}
		doc, err := html.Parse(strings.NewReader(page))
		if err != nil {
			return
		}
		r, err := Anchor(doc, pageURL, []string{keyword})
		if err != nil {
			return
		}
		doc2, _ := html.Parse(strings.NewReader(page))
		got, err := Relocate(doc2, pageURL, r.Fingerprint)
		if err != nil {
			t.Fatal(err)
		}
		if ch := Compare(r.Fingerprint, got.Fingerprint, r.Fingerprint.Keywords); ch.Changed {
			t.Fatalf("same page changed: %s", signalText(ch.Signals))
		}
		_ = Diff(r.Markdown, got.Markdown)
	})
}
