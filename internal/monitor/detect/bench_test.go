package detect

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRelocate1MB measures Relocate on a generated 1 MB page
// (parsing excluded).
func BenchmarkRelocate1MB(b *testing.B) {
	page := bigPage(1<<20, "Quarterly")
	r := anchor(b, page, "quarterly")
	doc := parse(b, page)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Relocate(doc, pageURL, r.Fingerprint); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeepNesting measures Anchor and Relocate on a page nested
// 10,000 levels deep.
func BenchmarkDeepNesting(b *testing.B) {
	r, err := Anchor(deepDoc(10_000), pageURL, []string{"earnings"})
	if err != nil {
		b.Fatal(err)
	}
	doc := deepDoc(10_000)
	for b.Loop() {
		if _, err := Anchor(deepDoc(10_000), pageURL, []string{"earnings"}); err != nil {
			b.Fatal(err)
		}
		if _, err := Relocate(doc, pageURL, r.Fingerprint); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHostile measures Anchor and Relocate (parsing excluded) on a
// paragraph of 200,000 links and on a list of 60,000 items.
func BenchmarkHostile(b *testing.B) {
	var links, items strings.Builder
	links.WriteString("<html><body><p>")
	items.WriteString("<html><body><ul>")
	for i := range 200_000 {
		fmt.Fprintf(&links, `<a href="/l/%d">earnings %d</a>`, i, i)
		if i < 60_000 {
			fmt.Fprintf(&items, `<li><a href="/i/%d">earnings item %d</a></li>`, i, i)
		}
	}
	for name, page := range map[string]string{"links": links.String(), "items": items.String()} {
		b.Run(name, func(b *testing.B) {
			r := anchor(b, page, "earnings")
			doc := parse(b, page)
			for b.Loop() {
				if _, err := Anchor(doc, pageURL, []string{"earnings"}); err != nil {
					b.Fatal(err)
				}
				if _, err := Relocate(doc, pageURL, r.Fingerprint); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
