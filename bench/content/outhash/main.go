// Command outhash converts every page of the three corpora with
// content.HTML (main content, links) and prints one line per page: its
// name and a hash of everything the pipeline returns (markdown, text,
// links, metadata, page type, confidence and both models' inputs). Two
// runs on two commits that print the same lines made the same output on
// every page: the check for a change meant to be speed only. With -every
// N it converts every Nth page only; -load reads the pages and converts
// none (the base to subtract from an instruction count); -cpuprofile and
// -memprofile write profiles; -off NAME[,NAME] switches rule families off
// (content.SetRuleOff). Compare instruction counts only between
// builds of this same driver: linking runtime/pprof turns on the
// runtime's sampling of allocations, whose stack walks count too.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

func main() {
	shared := flag.String("shared", "../shared/corpus", "the corpora")
	every := flag.Int("every", 1, "convert every Nth page only")
	load := flag.Bool("load", false, "read the pages, convert none")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here")
	memprofile := flag.String("memprofile", "", "write an allocation profile here")
	off := flag.String("off", "", "switch these rule families off, comma-separated (as bench/content -off)")
	textDate := flag.Bool("textdate", false, "switch date2's text-date rule on (as bench/content -textdate)")
	flag.Parse()
	content.SetTextDate(*textDate)
	if *off != "" {
		for _, name := range strings.Split(*off, ",") {
			if err := content.SetRuleOff(strings.TrimSpace(name), true); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
	if *memprofile != "" {
		defer func() {
			f, err := os.Create(*memprofile)
			if err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	pages, err := corpus.LoadAll(*shared)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i, p := range pages {
		if i%*every != 0 {
			continue
		}
		body, err := p.Body()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if *load {
			continue
		}
		doc, err := content.HTML(body, p.URL, content.Options{OnlyMainContent: true, IncludeLinks: true})
		h := sha256.New()
		if err != nil {
			fmt.Fprintf(h, "error %v", err)
		} else {
			b, _ := json.Marshal(doc)
			h.Write(b)
			fmt.Fprintf(h, "\x00%v\x00%v", doc.TypeFeatures(), doc.ConfidenceFeatures())
		}
		fmt.Printf("%s/%s %x\n", p.Corpus, p.Name, h.Sum(nil)[:8])
	}
}
