// Command prodlook prints, for each half-A wcxb-dev page of one type, the
// selector's candidates with their word F1 (a diagnostic, half A only).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

var verbose *bool

func main() {
	typ := flag.String("type", "product", "wcxb-dev type")
	dir := flag.String("wcxb", "../shared/corpus/wcxb-dev", "")
	emptyBody := flag.Bool("emptybody", false, "list pages whose body candidate is (nearly) empty")
	rule := flag.Int("rule", -1, "simulate chooser variant N on half A")
	verbose = flag.Bool("v", false, "")
	trainOut := flag.String("train", "", "fit the product block filter on half A and write its model to FILE (- to print only)")
	flag.Parse()
	var pcs []*pageCands
	pages, err := corpus.LoadWCXB(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *trainOut != "" {
		o := *trainOut
		if o == "-" {
			o = ""
		}
		train(pages, o)
		return
	}
	for _, p := range pages {
		if p.Half != corpus.HalfA || (*typ != "all" && p.Type != *typ) {
			continue
		}
		b, _ := p.Body()
		cs, probs, err := content.Candidates(b, p.URL)
		if err != nil {
			continue
		}
		if *rule >= 0 {
			pc := &pageCands{p: p, cs: cs, probs: probs}
			for _, c := range cs {
				pc.f1 = append(pc.f1, p.Score(c.Text, true).F1)
			}
			pcs = append(pcs, pc)
			continue
		}
		if *emptyBody {
			for _, c := range cs {
				if c.Kind == "body" && len(corpus.Words(c.Text)) < 10 {
					fin := ""
					for _, d := range cs {
						if d.Chosen {
							fin = d.Text
						}
					}
					fmt.Printf("%s %s bodywords %d refwords %d final %.2f finalwords %d\n", p.Name, p.Type, len(corpus.Words(c.Text)), len(corpus.Words(p.Expected)), p.Score(fin, true).F1, len(corpus.Words(fin)))
				}
			}
			continue
		}
		var parts []string
		for _, c := range cs {
			s := p.Score(c.Text, true)
			m := " "
			if c.Chosen {
				m = "*"
			} else if c.Current {
				m = "c"
			}
			parts = append(parts, fmt.Sprintf("%s%s %.2f(%.2f/%.2f)", m, c.Kind, s.F1, s.P, s.R))
		}
		fmt.Printf("%s pprod %.2f part %.2f sel %v | %s\n", p.Name, probs[3], probs[0], len(cs) > 0 && cs[0].Selectable, strings.Join(parts, "  "))
	}
	if *rule >= 0 {
		ruleVariant = *rule
		runRule(pcs)
	}
}
