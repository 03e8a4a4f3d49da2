package content

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/net/html"
)

// corpusPages are the readability test pages, shared by benchmarks and
// absent from a fresh clone.
const corpusPages = "../../../shared/corpus/readability/test-pages/*/source.html"

func loadCorpus(b *testing.B) ([][]byte, int64) {
	b.Helper()
	files, _ := filepath.Glob(corpusPages)
	if len(files) == 0 {
		b.Skip("corpus not found at " + corpusPages)
	}
	var pages [][]byte
	var total int64
	for _, f := range files {
		p, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, p)
		total += int64(len(p))
	}
	return pages, total
}

// BenchmarkPipeline measures the whole HTML path (parse, metadata, links,
// main content, markdown) over the corpus; one op converts every page.
func BenchmarkPipeline(b *testing.B) {
	pages, total := loadCorpus(b)
	if *benchTextDate {
		textDateOn = true
		defer func() { textDateOn = false }()
	}
	for _, c := range []struct {
		name string
		opt  Options
	}{
		{"main", Options{OnlyMainContent: true, IncludeLinks: true}},
		{"full", Options{OnlyMainContent: false, IncludeLinks: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			before := fallbacks.Load()
			for b.Loop() {
				for _, p := range pages {
					if _, err := HTML(p, "http://fakehost/test/page.html", c.opt); err != nil {
						b.Fatal(err)
					}
				}
			}
			// Pages handed to trafilatura because readability found
			// too little text, per op (of len(pages) pages).
			b.ReportMetric(float64(fallbacks.Load()-before)/float64(b.N), "fallbacks/op")
		})
	}
}

// BenchmarkParse measures html.Parse alone: the ceiling of the pipeline.
func BenchmarkParse(b *testing.B) {
	pages, total := loadCorpus(b)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if _, err := html.Parse(bytes.NewReader(p)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
