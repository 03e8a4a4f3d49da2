package main

import (
	"fmt"
	"os"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// Runs our extractor over half-A wcxb pages (only), printing a PAGE line
// to stderr before each, so PWDBG lines can be attributed.
func main() {
	pages, err := corpus.LoadWCXB("../shared/corpus/wcxb-dev")
	if err != nil {
		panic(err)
	}
	only := map[string]bool{}
	for _, a := range os.Args[1:] {
		only[a] = true
	}
	for _, p := range pages {
		if p.Half != corpus.HalfA || len(only) > 0 && !only[p.Name] {
			continue
		}
		b, _ := p.Body()
		fmt.Fprintf(os.Stderr, "PAGE %s %s\n", p.Name, p.Type)
		doc, err := content.HTML(b, p.URL, content.Options{OnlyMainContent: true})
		if err != nil {
			continue
		}
		f1, _, _ := corpus.WordF1(doc.Text, p.Expected)
		fmt.Fprintf(os.Stderr, "F1 %s %.3f\n", p.Name, f1)
	}
}
