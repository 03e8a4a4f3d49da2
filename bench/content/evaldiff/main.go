// Command evaldiff reads a folder written by `go run ./bench/content
// -corpus eval -dump DIR` and prints, for trafilatura-eval's pages of one
// half, every snippet on which two extractors disagree: a wanted snippet
// one finds and the other misses (fn), an unwanted snippet one keeps and
// the other drops (fp). With -both it also prints the snippets that
// both get wrong. It is how a rule author reads where a peer is right
// and we are wrong, kind by kind:
//
//	go run ./bench/content -corpus eval -half A -peers fallback -dump /tmp/d
//	go run ./bench/content/evaldiff -dump /tmp/d -half A
//
// Each line: kind (fn, fp, fn-both, fp-both), page, whether each
// extractor gets the snippet right, the snippet.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"webacq/bench/content/corpus"
)

func main() {
	dump := flag.String("dump", "", "folder written by bench/content -dump")
	dir := flag.String("eval", "../shared/corpus/trafilatura-eval", "folder of the trafilatura evaluation pages")
	half := flag.String("half", corpus.HalfA, "half to read: A or B")
	ours := flag.String("ours", "webacq", "first extractor (a folder under -dump)")
	peer := flag.String("peer", "go-traf+fallback", "second extractor (a folder under -dump)")
	both := flag.Bool("both", false, "also print the snippets both extractors get wrong")
	flag.Parse()
	if *dump == "" {
		fmt.Fprintln(os.Stderr, "evaldiff: -dump is required")
		os.Exit(2)
	}
	pages, err := corpus.LoadEval(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "evaldiff:", err)
		os.Exit(1)
	}
	read := func(who string, p *corpus.Page) (string, bool) {
		b, err := os.ReadFile(filepath.Join(*dump, who, corpus.Eval, strings.TrimSuffix(p.Name, ".html")+".txt"))
		return corpus.NormSpace(string(b)), err == nil
	}
	for _, p := range pages {
		if p.Half != *half {
			continue
		}
		a, okA := read(*ours, p)
		b, okB := read(*peer, p)
		if !okA || !okB {
			continue
		}
		show := func(kind string, rightA, rightB bool, s string) {
			switch {
			case rightA != rightB:
				fmt.Printf("%s\t%s\t%s=%v\t%s=%v\t%q\n", kind, p.Name, *ours, rightA, *peer, rightB, s)
			case !rightA && *both:
				fmt.Printf("%s-both\t%s\t\t\t%q\n", kind, p.Name, s)
			}
		}
		for _, s := range p.With {
			show("fn", strings.Contains(a, s), strings.Contains(b, s), s)
		}
		for _, s := range p.Without {
			show("fp", !strings.Contains(a, s), !strings.Contains(b, s), s)
		}
	}
}
