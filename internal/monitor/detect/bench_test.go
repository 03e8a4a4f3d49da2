package detect

import "testing"

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
