// Command productloss says where wcxb-dev's product pages lose word F1
// (i20-product3): for every page of one half and type, the words we
// keep that the reference lacks (precision) and the reference's words we
// miss (recall), each sorted into kinds by where the text sits in the
// page's DOM. Run from the repository root:
//
//	go run ./bench/content/productloss -half A [-type product] [-v] [-feat]
//
// -feat (prec) adds a table of our units by structural feature (ARIA
// roles and roledescriptions, microdata types, dialogs, popovers,
// details, form controls, landmarks, carousel, FAQ and review class
// names): the words the reference holds and those it lacks, by page.
//
// The page is parsed again and cut into units: the text of each block
// element outside its inner blocks. A unit is "ours" or "gold" when half
// or more of its 3-word shingles (its words, under three) appear in our
// text or the reference. The region we chose is the smallest element
// that holds 80 % of the words of the units that are ours.
package main

import (
	"bytes"
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

var featPage string

type unit struct {
	node   *html.Node // the block element
	words  []string
	order  int
	hidden bool // under hidden markup (attribute, inline style, hiding class)
	ours   bool // in our text
	gold   bool // in the reference
}

func main() {
	wcxb := flag.String("wcxb", "../shared/corpus/wcxb-dev", "folder of wcxb-dev")
	half := flag.String("half", "A", "half: A or B")
	typ := flag.String("type", "product", "page type")
	verbose := flag.Bool("v", false, "print every unit that loses words")
	feat := flag.Bool("feat", false, "print, by structural feature, the words of our units in the reference and not")
	window := flag.Bool("window", false, "also print, per page, the best run of consecutive lines of our text (the trimming oracle)")
	flag.Parse()
	pages, err := corpus.LoadWCXB(*wcxb)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	recallKinds := map[string]*tally{}
	precKinds := map[string]*tally{}
	tradeKinds := map[string]*tally{}
	var sumF1, sumP, sumR, sumWin, sumHead, sumTail float64
	n := 0
	for _, p := range pages {
		if p.Half != *half || p.Type != *typ {
			continue
		}
		body, err := p.Body()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		marked := mark(body)
		doc, err := content.HTML(marked, p.URL, content.Options{OnlyMainContent: true, IncludeHTML: true})
		text, kept := "", ""
		if err == nil {
			text, kept = doc.Text, doc.HTML
		}
		f1, pr, re := corpus.WordF1(text, p.Expected)
		sumF1, sumP, sumR = sumF1+f1, sumP+pr, sumR+re
		if *window {
			w, from, to, lines, head, tail := windows(text, p.Expected, 1<<30)
			sumWin, sumHead, sumTail = sumWin+w, sumHead+head, sumTail+tail
			fmt.Printf("%s window F1 %.3f: lines %d-%d of %d; head %.3f, tail %.3f\n", p.Name, w, from, to, lines, head, tail)
		}
		n++
		featPage = p.Name
		miss, extra, trade := analyse(marked, text, kept, p.Expected, *verbose)
		fmt.Printf("%s F1 %.3f P %.3f R %.3f  recall:%s  precision:%s\n", p.Name, f1, pr, re, fmtKinds(miss), fmtKinds(extra))
		for k, w := range miss {
			add(recallKinds, k, p.Name, w)
		}
		for k, w := range extra {
			add(precKinds, k, p.Name, w)
		}
		for k, w := range trade {
			add(tradeKinds, k, p.Name, w)
		}
	}
	if *feat {
		printFeats()
	}
	fmt.Printf("\n%d pages: F1 %.4f P %.4f R %.4f\n", n, sumF1/float64(n), sumP/float64(n), sumR/float64(n))
	if *window {
		fmt.Printf("best run of consecutive lines of our text, per page: F1 %.4f; best head (end cut only) %.4f; best tail (start cut only) %.4f\n",
			sumWin/float64(n), sumHead/float64(n), sumTail/float64(n))
	}
	fmt.Println("\nrecall misses (reference words we miss), by kind: words, pages with ≥ 20 words of it")
	printTally(recallKinds)
	fmt.Println("\nprecision misses (our words the reference lacks), by kind")
	printTally(precKinds)
	fmt.Println("\nwhat a rule would trade: units by kind, in the reference or not")
	printTally(tradeKinds)
}

type tally struct {
	words int
	pages map[string]int
}

func add(m map[string]*tally, k, page string, w int) {
	t := m[k]
	if t == nil {
		t = &tally{pages: map[string]int{}}
		m[k] = t
	}
	t.words += w
	t.pages[page] += w
}

func printTally(m map[string]*tally) {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return m[ks[i]].words > m[ks[j]].words })
	for _, k := range ks {
		var ps []string
		for p, w := range m[k].pages {
			if w >= 20 {
				ps = append(ps, fmt.Sprintf("%s:%d", p, w))
			}
		}
		sort.Strings(ps)
		fmt.Printf("  %-28s %6d words  %2d pages  %s\n", k, m[k].words, len(ps), strings.Join(ps, " "))
	}
}

func fmtKinds(m map[string]int) string {
	var ks []string
	for k, w := range m {
		if w >= 20 {
			ks = append(ks, fmt.Sprintf(" %s=%d", k, w))
		}
	}
	sort.Strings(ks)
	return strings.Join(ks, "")
}

func blockish(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Ul, atom.Ol, atom.Li, atom.Dl, atom.Dt, atom.Dd, atom.Table, atom.Tr, atom.Td, atom.Th,
		atom.Pre, atom.Blockquote, atom.Section, atom.Article, atom.Header, atom.Footer,
		atom.Nav, atom.Aside, atom.Main, atom.Figure, atom.Figcaption,
		atom.Address, atom.Details, atom.Summary, atom.Caption, atom.Form, atom.Body, atom.Button, atom.Label:
		return true
	}
	return false
}

func attr(n *html.Node, k string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val, true
		}
	}
	return "", false
}

func shingles(w []string) map[string]int {
	m := map[string]int{}
	for i := 0; i+3 <= len(w); i++ {
		m[strings.Join(w[i:i+3], " ")]++
	}
	return m
}

func covered(w []string, set map[string]int, words map[string]int, joined string) bool {
	if len(w) < 3 {
		return len(w) > 0 && strings.Contains(joined, " "+strings.Join(w, " ")+" ")
	}
	in := 0
	for i := 0; i+3 <= len(w); i++ {
		if set[strings.Join(w[i:i+3], " ")] > 0 {
			in++
		}
	}
	return 2*in >= len(w)-2
}

func counts(w []string) map[string]int {
	m := map[string]int{}
	for _, x := range w {
		m[x]++
	}
	return m
}

// mark numbers every element of the page (data-p3), so that the
// elements of our HTML output can be found in the page.
func mark(body []byte) []byte {
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return body
	}
	id := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				id++
				c.Attr = append(c.Attr, html.Attribute{Key: "data-p3", Val: fmt.Sprint(id)})
				walk(c)
			}
		}
	}
	walk(root)
	var b bytes.Buffer
	if err := html.Render(&b, root); err != nil {
		return body
	}
	return b.Bytes()
}

// keptIDs returns the data-p3 numbers of our output's elements, and
// those of its top-level elements.
func keptIDs(out string) (all, top map[string]bool) {
	all, top = map[string]bool{}, map[string]bool{}
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(out), ctx)
	if err != nil {
		return
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if v, ok := attr(n, "data-p3"); ok {
			all[v] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		if v, ok := attr(n, "data-p3"); ok {
			top[v] = true
		}
		walk(n)
	}
	return
}

// analyse returns the words lost by kind: reference words we miss, and
// our words the reference lacks.
func analyse(body []byte, ours, out, gold string, verbose bool) (miss, extra, trade map[string]int) {
	miss, extra, trade = map[string]int{}, map[string]int{}, map[string]int{}
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return
	}
	keptAll, keptTop := keptIDs(out)
	ow, gw := corpus.Words(ours), corpus.Words(gold)
	osh, gsh := shingles(ow), shingles(gw)
	oc, gc := counts(ow), counts(gw)
	ojoin, gjoin := " "+strings.Join(ow, " ")+" ", " "+strings.Join(gw, " ")+" "
	var units []*unit
	var scripts []string
	var h1 *html.Node
	var tops []*html.Node
	var walk func(n *html.Node, cur *unit, hidden bool)
	walk = func(n *html.Node, cur *unit, hidden bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if cur != nil {
					cur.words = append(cur.words, corpus.Words(c.Data)...)
				}
			case html.ElementNode:
				switch c.DataAtom {
				case atom.Script:
					if c.FirstChild != nil {
						scripts = append(scripts, c.FirstChild.Data)
					}
					continue
				case atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head:
					continue
				}
				if v, _ := attr(c, "data-p3"); keptTop[v] {
					tops = append(tops, c)
				}
				if c.DataAtom == atom.H1 && h1 == nil {
					h1 = c
				}
				h := hidden || content.Hidden(c)
				if blockish(c) {
					u := &unit{node: c, hidden: h, order: len(units)}
					units = append(units, u)
					walk(c, u, h)
				} else {
					walk(c, cur, h)
				}
			}
		}
	}
	walk(root, nil, false)
	for _, u := range units {
		if len(u.words) == 0 {
			continue
		}
		v, _ := attr(u.node, "data-p3")
		u.ours = keptAll[v] && covered(u.words, osh, oc, ojoin)
		u.gold = covered(u.words, gsh, gc, gjoin)
	}
	// The chosen region: the lowest common ancestor of our output's
	// top-level elements in the page.
	var region *html.Node
	for _, t := range tops {
		if region == nil {
			region = t
			continue
		}
		for !within(region, t) {
			region = region.Parent
		}
	}
	h1order := -1
	for _, u := range units {
		if h1 != nil && within(u.node, h1) {
			h1order = u.order
		}
	}
	gleft := counts(gw)
	for _, u := range units {
		if !u.gold || len(u.words) == 0 {
			continue
		}
		for _, x := range u.words {
			if gleft[x] > 0 {
				gleft[x]--
			}
		}
		if u.ours {
			continue
		}
		k := missKind(u, region, h1)
		miss[k] += len(u.words)
		if verbose {
			fmt.Printf("   - miss %-22s %s  [%s]\n", k, clip(u.words), chain(u.node))
		}
	}
	// Hidden panels (the hidden element's id named by an aria-controls,
	// or role tabpanel): gold and not gold, in the region or not.
	controlled := map[string]bool{}
	var cw func(n *html.Node)
	cw = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if v, ok := attr(n, "aria-controls"); ok {
				for _, f := range strings.Fields(v) {
					controlled[f] = true
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			cw(c)
		}
	}
	cw(root)
	for _, u := range units {
		if !u.hidden || len(u.words) == 0 || u.ours {
			continue
		}
		panel := false
		for a := u.node; a != nil && a.Type == html.ElementNode; a = a.Parent {
			id, _ := attr(a, "id")
			role, _ := attr(a, "role")
			if id != "" && controlled[id] || role == "tabpanel" {
				panel = true
				break
			}
			if content.Hidden(a) {
				break
			}
		}
		if !panel {
			continue
		}
		where := "elsewhere"
		if region != nil && within(region, u.node) {
			where = "in region"
		}
		g := "not in the reference"
		if u.gold {
			g = "in the reference"
		}
		trade["hidden panel "+where+", "+g] += len(u.words)
	}
	// Our units in a run of cards, and the visible units of the region
	// that the cleaning took out: in the reference or not.
	inRef := map[bool]string{true: ", in the reference", false: ", not in the reference"}
	for _, u := range units {
		if len(u.words) == 0 {
			continue
		}
		if in, p := cardRun(u.node, region); u.ours && in {
			what := "ours, in a run of cards without prices"
			if p {
				what = "ours, in a run of cards with prices"
			}
			trade[what+inRef[u.gold]] += len(u.words)
		}
		if !u.hidden && !u.ours && region != nil && within(region, u.node) {
			trade["visible in the region, cleaned out"+inRef[u.gold]] += len(u.words)
		}
	}
	// Hidden text inside the region that the reference lacks: what
	// restoring hidden panels would add as noise.
	for _, u := range units {
		if u.hidden && !u.gold && len(u.words) > 0 && region != nil && within(region, u.node) {
			trade["hidden in the region, not in the reference"] += len(u.words)
		}
	}
	scriptWords := counts(corpus.Words(strings.Join(scripts, " ")))
	lost := 0
	for x, c := range gleft {
		c -= oc[x]
		if c <= 0 {
			continue
		}
		if scriptWords[x] > 0 {
			miss["in a script only"] += c
		} else {
			lost += c
		}
	}
	miss["in no element of the page"] += lost
	for _, u := range units {
		if u.ours && len(u.words) > 0 {
			for _, f := range unitFeats(u.node) {
				addFeat(f, featPage, len(u.words), u.gold)
			}
		}
	}
	for _, u := range units {
		if !u.ours || u.gold || len(u.words) == 0 {
			continue
		}
		k := extraKind(u, h1order, region)
		extra[k] += len(u.words)
		if verbose {
			fmt.Printf("   + extra %-22s %s  [%s]\n", k, clip(u.words), chain(u.node))
		}
	}
	return
}

func clip(w []string) string {
	if len(w) > 14 {
		return strings.Join(w[:14], " ") + " …"
	}
	return strings.Join(w, " ")
}

func within(a, n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}

func missKind(u *unit, region, h1 *html.Node) string {
	if u.hidden {
		if region != nil && within(region, u.node) {
			return "hidden by attribute or style, in region"
		}
		if region != nil && region.Parent != nil && within(region.Parent.Parent, u.node) {
			return "hidden by attribute or style, ≤ 2 up"
		}
		return "hidden by attribute or style, elsewhere"
	}
	if region == nil {
		return "region unknown (output not marked)"
	}
	if within(region, u.node) {
		for a := u.node; a != region; a = a.Parent {
			c, _ := attr(a, "class")
			if hidingName(c) {
				return "in region, class hides it"
			}
		}
		for a := u.node; a != region; a = a.Parent {
			switch a.DataAtom {
			case atom.Details, atom.Summary, atom.Button, atom.Form, atom.Label, atom.Select:
				return "in region, details/form/button"
			}
		}
		return "in region, cleaned out"
	}
	for a := u.node; a != nil; a = a.Parent {
		switch a.DataAtom {
		case atom.Nav, atom.Header, atom.Footer, atom.Aside:
			return "outside, in nav/header/footer/aside"
		}
	}
	if p := region.Parent; p != nil && (within(p, u.node) || p.Parent != nil && within(p.Parent, u.node)) {
		return "outside, next to region (≤ 2 up)"
	}
	if h1 != nil && !within(region, h1) && (h1.Parent != nil && within(h1.Parent, u.node) || h1.Parent != nil && h1.Parent.Parent != nil && within(h1.Parent.Parent, u.node)) {
		return "outside, next to the h1 (≤ 2 up)"
	}
	return "outside, elsewhere"
}

// hidingName tells whether a class value names hiding: hidden, hide,
// d-none, collapse(d), or a name ending in "-hidden" that hides more
// than a part (not a label, an overflow, a back face or a screen size).
func hidingName(c string) bool {
	for _, w := range strings.Fields(strings.ToLower(c)) {
		switch w {
		case "hidden", "hide", "d-none", "collapse", "collapsed", "is-hidden":
			return true
		}
		if strings.HasSuffix(w, "-hidden") {
			part := false
			for _, p := range []string{"label", "overflow", "backface", "xs", "sm", "md", "lg", "mobile", "desktop"} {
				if strings.Contains(w, p) {
					part = true
				}
			}
			if !part {
				return true
			}
		}
	}
	return false
}

// inCardRun tells whether an ancestor of n below stop is one of three
// or more siblings of one tag and first class word, most holding a link
// beside an image or a price.
func inCardRun(n, stop *html.Node) bool {
	in, _ := cardRun(n, stop)
	return in
}

// cardRun tells whether n is in a run of cards (see inCardRun) and
// whether six in ten of that run's items hold a price.
func cardRun(n, stop *html.Node) (in, withPrices bool) {
	for a := n; a != nil && a != stop && a.Parent != nil; a = a.Parent {
		key := a.Data + "." + firstClass(a)
		same, good, withPrice := 0, 0, 0
		for c := a.Parent.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || c.Data+"."+firstClass(c) != key {
				continue
			}
			same++
			if hasTag(c, atom.A) && (hasTag(c, atom.Img) || hasTag(c, atom.Picture) || priced(c)) {
				good++
			}
			if priced(c) {
				withPrice++
			}
		}
		if same >= 3 && good*10 >= same*6 {
			return true, withPrice*10 >= same*6
		}
	}
	return false, false
}

func firstClass(n *html.Node) string {
	c, _ := attr(n, "class")
	f := strings.Fields(c)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func hasTag(n *html.Node, a atom.Atom) bool {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasTag(c, a) {
			return true
		}
	}
	return false
}

// priced tells whether a text under n holds a currency sign.
func priced(n *html.Node) bool {
	if n.Type == html.TextNode {
		return strings.ContainsAny(n.Data, "$€£")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if priced(c) {
			return true
		}
	}
	return false
}

func extraKind(u *unit, h1order int, region *html.Node) string {
	n := u.node
	links, words := 0, len(u.words)
	var lw func(*html.Node, bool)
	lw = func(x *html.Node, in bool) {
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && in {
				links += len(corpus.Words(c.Data))
			} else if c.Type == html.ElementNode && !blockish(c) {
				lw(c, in || c.DataAtom == atom.A)
			}
		}
	}
	lw(n, n.DataAtom == atom.A)
	for a := n; a != nil && a.DataAtom != atom.Body; a = a.Parent {
		switch a.DataAtom {
		case atom.Form, atom.Button, atom.Label, atom.Select:
			return "form or control"
		case atom.Nav, atom.Header, atom.Footer, atom.Aside:
			return "nav/header/footer/aside"
		}
	}
	if h1order >= 0 && u.order < h1order {
		return "before the h1"
	}
	if inCardRun(n, region) {
		return "in a run of cards"
	}
	if words > 0 && 2*links >= words {
		return "link text"
	}
	names := ""
	for a := n; a != nil && a != region; a = a.Parent {
		c, _ := attr(a, "class")
		id, _ := attr(a, "id")
		names += " " + strings.ToLower(c+" "+id)
	}
	for _, k := range []struct{ word, kind string }{
		{"review", "reviews"}, {"rating", "reviews"}, {"faq", "faq"}, {"question", "faq"},
		{"related", "related/recommended"}, {"recommend", "related/recommended"}, {"similar", "related/recommended"},
		{"shipping", "shipping/returns"}, {"delivery", "shipping/returns"}, {"return", "shipping/returns"},
	} {
		if strings.Contains(names, k.word) {
			return "named " + k.kind
		}
	}
	if words < 6 {
		return "short line (< 6 words)"
	}
	return "other text"
}

// chain names n's ancestors up to six levels: tag.class.
func chain(n *html.Node) string {
	var parts []string
	for i := 0; n != nil && n.Type == html.ElementNode && i < 6; i, n = i+1, n.Parent {
		c, _ := attr(n, "class")
		parts = append(parts, n.Data+"."+strings.Join(strings.Fields(c), "."))
	}
	return strings.Join(parts, " < ")
}

// windows returns the best word F1 against want of a run of
// consecutive non-empty lines of got, the run (from, to: lines from
// and up to but not including to) and the number of lines, and the best
// F1 of a head of the text (lines from the first) and of a tail (lines
// up to the last). Runs start at every line, or at starts evenly spaced
// ones; each start extends line by line, the overlap kept incrementally.
func windows(got, want string, starts int) (best float64, from, to, lines int, head, tail float64) {
	var ls [][]string
	for _, l := range strings.Split(got, "\n") {
		if w := corpus.Words(l); len(w) > 0 {
			ls = append(ls, w)
		}
	}
	wantCount := counts(corpus.Words(want))
	total := 0
	for _, c := range wantCount {
		total += c
	}
	best, _, _ = corpus.WordF1(got, want)
	from, to, lines = 0, len(ls), len(ls)
	if total == 0 {
		// An empty reference: the empty run scores 1.
		return 1, 0, 0, lines, 1, 1
	}
	head, tail = best, best
	step := max(1, len(ls)/starts)
	for i := 0; i < len(ls); i += step {
		have := map[string]int{}
		overlap, words := 0, 0
		for j := i; j < len(ls); j++ {
			for _, w := range ls[j] {
				if have[w] < wantCount[w] {
					overlap++
				}
				have[w]++
				words++
			}
			if overlap == 0 || total == 0 {
				continue
			}
			p, r := float64(overlap)/float64(words), float64(overlap)/float64(total)
			f := 2 * p * r / (p + r)
			if f > best {
				best, from, to = f, i, j+1
			}
			if i == 0 && f > head {
				head = f
			}
			if j == len(ls)-1 && f > tail {
				tail = f
			}
		}
	}
	return best, from, to, lines, head, tail
}
