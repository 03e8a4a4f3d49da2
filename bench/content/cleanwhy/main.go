// Command cleanwhy says which rule of the cleaning of our readability
// pass (prepare in internal/content) removes wanted text (branch
// cleanwhy). For every page of one half it records, through
// content.CleanTrace, each element the article that readableContent
// returns lost and why, and counts the element's words:
//
//   - wcxb-dev and readability: a word is wrong when it is one of the
//     reference's words our output misses (multiset: the reference's
//     words minus ours, each word taken once), right otherwise;
//   - trafilatura-eval: the words of a "with" snippet the element holds
//     whole and our output lacks are wrong, those of a "without"
//     snippet it holds right (other words are not counted).
//
// Run from the repository root:
//
//	go run ./bench/content/cleanwhy -half A [-corpus wcxb|eval|readability] [-type article] [-v N]
//
// -v N prints every removal with N wrong words or more, with its shape.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

type event struct {
	why   string
	text  string
	shape string
}

type tally struct {
	right, wrong int
	pages        map[string]int // wrong words per page
	n            int
}

func main() {
	shared := flag.String("shared", "../shared/corpus", "folder of the corpora")
	half := flag.String("half", "A", "half: A or B")
	which := flag.String("corpus", "", "wcxb, eval or readability (all when empty)")
	typ := flag.String("type", "", "wcxb-dev page type (all when empty)")
	verbose := flag.Int("v", 0, "print the removals with this many wrong words or more (0: none)")
	attempts := flag.Bool("attempts", false, "print every event of every attempt")
	page := flag.String("page", "", "this page only")
	grep := flag.String("grep", "", "print every removal whose reason holds this")
	flag.Parse()
	if *half != corpus.HalfA {
		fmt.Fprintln(os.Stderr, "cleanwhy reads references: half A only")
		os.Exit(2)
	}
	pages, err := corpus.LoadAll(*shared)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	byCorpus := map[string]map[string]*tally{}
	var events map[*html.Node][]event
	var chosen []event
	content.CleanTrace = func(art *html.Node, why string, n *html.Node) {
		if why == "returned" {
			if *attempts {
				fmt.Printf("returned %p\n", art)
			}
			chosen = events[art]
			return
		}
		if *attempts {
			fmt.Printf("attempt %p: %s %s %.200s\n", art, why, shape(n), corpus.NormSpace(blockText(n)))
		}
		events[art] = append(events[art], event{why: why, text: blockText(n), shape: shape(n)})
	}
	for _, p := range pages {
		if p.Half != *half || *which != "" && p.Corpus != *which || *typ != "" && p.Type != *typ || *page != "" && p.Name != *page {
			continue
		}
		body, err := p.Body()
		if err != nil {
			continue
		}
		events, chosen = map[*html.Node][]event{}, nil
		doc, err := content.HTML(body, p.URL, content.Options{OnlyMainContent: true})
		if err != nil {
			continue
		}
		m := byCorpus[p.Corpus]
		if m == nil {
			m = map[string]*tally{}
			byCorpus[p.Corpus] = m
		}
		var judge func(text string) (right, wrong int)
		if p.Corpus == corpus.Eval {
			out := corpus.NormSpace(doc.Text)
			judge = func(text string) (right, wrong int) {
				t := corpus.NormSpace(text)
				for _, w := range p.With {
					if strings.Contains(t, w) && !strings.Contains(out, w) {
						wrong += len(corpus.Words(w))
					}
				}
				for _, w := range p.Without {
					if strings.Contains(t, w) {
						right += len(corpus.Words(w))
					}
				}
				return
			}
		} else {
			missing := map[string]int{}
			for _, w := range corpus.Words(p.Expected) {
				missing[w]++
			}
			for _, w := range corpus.Words(doc.Text) {
				missing[w]--
			}
			judge = func(text string) (right, wrong int) {
				for _, w := range corpus.Words(text) {
					if missing[w] > 0 {
						missing[w]--
						wrong++
					} else {
						right++
					}
				}
				return
			}
		}
		if *attempts {
			fmt.Printf("%s %s returned %d events\n", p.Corpus, p.Name, len(chosen))
		}
		for _, e := range chosen {
			if strings.HasPrefix(e.why, "spared") {
				if *grep != "" && strings.Contains(e.why, *grep) {
					fmt.Printf("%s %s [%s] %s\n    %.300s\n", p.Corpus, p.Name, e.why, e.shape, corpus.NormSpace(e.text))
				}
				continue
			}
			right, wrong := judge(e.text)
			key := e.why
			if strings.HasPrefix(e.why, "form") || strings.HasPrefix(e.why, "fieldset") ||
				strings.HasPrefix(e.why, "table") || strings.HasPrefix(e.why, "ul") || strings.HasPrefix(e.why, "div") {
				// The deciding condition: the tag and the first one.
				if tag, conds, ok := strings.Cut(e.why, " "); ok {
					key = tag + " " + firstCond(conds)
				}
			} else if i := strings.Index(key, " ("); i > 0 {
				key = key[:i] // the counts after the reason
			}
			t := m[key]
			if t == nil {
				t = &tally{pages: map[string]int{}}
				m[key] = t
			}
			t.right += right
			t.wrong += wrong
			t.n++
			if wrong > 0 {
				t.pages[p.Name] += wrong
			}
			if *verbose > 0 && wrong >= *verbose || *grep != "" && strings.Contains(e.why, *grep) {
				fmt.Printf("%s %s [%s] wrong %d right %d: %s\n    %.300s\n", p.Corpus, p.Name, e.why, wrong, right, e.shape, corpus.NormSpace(e.text))
			}
		}
	}
	for _, c := range []string{corpus.Readability, corpus.Eval, corpus.WCXB} {
		m := byCorpus[c]
		if m == nil {
			continue
		}
		fmt.Printf("\n%s half %s: reason, elements, words removed right / wrong, top pages by wrong words\n", c, *half)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return m[keys[i]].wrong+m[keys[i]].right > m[keys[j]].wrong+m[keys[j]].right })
		for _, k := range keys {
			t := m[k]
			type pw struct {
				p string
				w int
			}
			var ps []pw
			for p, w := range t.pages {
				ps = append(ps, pw{p, w})
			}
			sort.Slice(ps, func(i, j int) bool { return ps[i].w > ps[j].w })
			var top []string
			for i := 0; i < len(ps) && i < 6; i++ {
				top = append(top, fmt.Sprintf("%s %d", ps[i].p, ps[i].w))
			}
			fmt.Printf("| %s | %d | %d | %d | %s |\n", k, t.n, t.right, t.wrong, strings.Join(top, ", "))
		}
	}
}

// firstCond is the deciding condition of a reason's conditions (the
// first; "short linked" and the others hold spaces).
func firstCond(s string) string {
	for _, c := range []string{"weight<0", "ad", "img>2p", "li>p+100", "input>p/3", "short linked", "links>0.2",
		"links>0.5 weight>=25", "one embed short", "embeds>1", "no textish"} {
		if strings.HasPrefix(s, c) {
			return c
		}
	}
	return s
}

// blockText is the text of n's subtree, blocks apart.
func blockText(n *html.Node) string {
	var sb strings.Builder
	var rec func(*html.Node, int)
	rec = func(n *html.Node, depth int) {
		if depth > 500 {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				sb.WriteString(c.Data)
			case html.ElementNode:
				if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
					continue
				}
				block := !inline[c.DataAtom]
				if block {
					sb.WriteByte(' ')
				}
				rec(c, depth+1)
				if block {
					sb.WriteByte(' ')
				}
			}
		}
	}
	if n.Type == html.TextNode {
		return n.Data
	}
	rec(n, 0)
	return sb.String()
}

var inline = map[atom.Atom]bool{atom.A: true, atom.Span: true, atom.B: true, atom.I: true, atom.Em: true,
	atom.Strong: true, atom.Code: true, atom.Small: true, atom.Sup: true, atom.Sub: true, atom.Abbr: true,
	atom.Time: true, atom.Mark: true, atom.U: true, atom.S: true, atom.Q: true, atom.Cite: true, atom.Label: true}

// shape is n's tag and class and the counts of some elements under it.
func shape(n *html.Node) string {
	if n.Type != html.ElementNode {
		return "text"
	}
	counts := map[string]int{}
	var rec func(*html.Node, int)
	rec = func(n *html.Node, depth int) {
		if depth > 500 {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.P, atom.Li, atom.A, atom.Img, atom.Table, atom.Tr, atom.Ul, atom.Ol, atom.Input, atom.Form,
				atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Div, atom.Br, atom.Iframe, atom.Dl, atom.Dd, atom.Pre, atom.Blockquote:
				counts[c.Data]++
			}
			rec(c, depth+1)
		}
	}
	rec(n, 0)
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s%d", k, counts[k]))
	}
	var cls string
	for _, a := range n.Attr {
		if a.Key == "class" || a.Key == "id" {
			cls += "." + a.Val
		}
	}
	return fmt.Sprintf("<%s%.60s> %s", n.Data, cls, strings.Join(parts, " "))
}
