// Command mdcompare checks the markdown renderer of internal/content
// (markdown.go) against the html-to-markdown library that it replaced,
// configured as the pipeline configured it (reference.go). Every page of
// the three corpora is converted with content.HTML, main content and
// whole body; each tree about to be rendered is also rendered by the
// library, and the two outputs are compared: byte-identical, identical
// once white space is collapsed, or different. It also checks that every
// word of the page's text appears in its markdown (ours and the
// library's).
//
//	go run ./bench/content/mdcompare              # counts
//	go run ./bench/content/mdcompare -show 5      # and the first differing lines of 5 pages
//	go run ./bench/content/mdcompare -page wcxb-dev/0042 -full   # one page, both outputs to /tmp
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"unicode"

	"golang.org/x/net/html"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

func main() {
	shared := flag.String("shared", "../shared/corpus", "the corpora")
	show := flag.Int("show", 0, "print the first differing lines of this many pages per mode")
	page := flag.String("page", "", "convert this page only (corpus/name) and write both outputs to /tmp/md-ours.md and /tmp/md-lib.md")
	full := flag.Bool("full", false, "with -page: the whole body, not the main content")
	flag.Parse()

	pages, err := corpus.LoadAll(*shared)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	var ours, lib []string
	content.MarkdownHook = func(tree *html.Node, md string) {
		ours = append(ours, md)
		lib = append(lib, reference(tree))
	}
	for _, main := range []bool{true, false} {
		if *page != "" && main == *full {
			continue
		}
		var same, spaces, differ, oursLost, libLost, n int
		shown := 0
		for _, p := range pages {
			if *page != "" && p.Corpus+"/"+p.Name != *page {
				continue
			}
			body, err := p.Body()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			ours, lib = ours[:0], lib[:0]
			doc, err := content.HTML(body, p.URL, content.Options{OnlyMainContent: main, IncludeLinks: true})
			if err != nil {
				continue
			}
			n++
			o, l := strings.Join(ours, "\n\x00\n"), strings.Join(lib, "\n\x00\n")
			if *page != "" {
				_ = os.WriteFile("/tmp/md-ours.md", []byte(o), 0o644)
				_ = os.WriteFile("/tmp/md-lib.md", []byte(l), 0o644)
				_ = os.WriteFile("/tmp/md-text.txt", []byte(doc.Text), 0o644)
			}
			switch {
			case o == l:
				same++
			case strings.Join(strings.Fields(o), " ") == strings.Join(strings.Fields(l), " "):
				spaces++
			default:
				differ++
				if shown < *show {
					shown++
					fmt.Printf("--- %s/%s (main=%v)\n%s\n", p.Corpus, p.Name, main, firstDiff(o, l))
				}
			}
			if lost := missingWords(doc.Text, doc.Markdown); lost != "" {
				oursLost++
				if shown < *show {
					fmt.Printf("    words lost (ours) %s/%s: %s\n", p.Corpus, p.Name, lost)
				}
			}
			if missingWords(doc.Text, l) != "" {
				libLost++
			}
		}
		fmt.Printf("main=%v pages=%d identical=%d same-after-whitespace=%d different=%d text-words-missing: ours=%d library=%d\n",
			main, n, same, spaces, differ, oursLost, libLost)
	}
}

// firstDiff shows the first line where a and b differ, with one line of
// context.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			prev := ""
			if i > 0 && i-1 < len(la) {
				prev = la[i-1]
			}
			return fmt.Sprintf("  line %d (after %.80q)\n  ours: %.300q\n  lib:  %.300q", i+1, prev, x, y)
		}
	}
	return "  (equal lines?)"
}

// missingWords returns the first words of text (runs of letters and
// digits, lower-cased, counted) that md holds fewer times, or "". A
// word that md's letters and digits hold when run together is not
// missing: the text ran two words together that md keeps apart
// ("bodymay" for "body" and "may" in two table cells).
func missingWords(text, md string) string {
	have := make(map[string]int)
	for _, w := range words(md) {
		have[w]++
	}
	var lost []string
	var stream string // md's letters and digits, for words that the text runs together
	for _, w := range words(text) {
		if have[w] == 0 {
			if stream == "" {
				stream = strings.Join(words(md), "")
			}
			if strings.Contains(stream, w) {
				continue
			}
			if len(lost) < 5 {
				lost = append(lost, w)
			}
			continue
		}
		have[w]--
	}
	if len(lost) == 0 {
		return ""
	}
	return strings.Join(lost, " ")
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
