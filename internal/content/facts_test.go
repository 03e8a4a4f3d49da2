package content

import (
	"maps"
	"math/rand"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// factsWalk is facts as a walk of n's subtree (the walk facts replaced):
// the reference facts must agree with.
func factsWalk(n *html.Node, dataTables map[*html.Node]bool) blockFacts {
	var f blockFacts
	var visit func(n *html.Node, link float64, heading, list, textish bool)
	visit = func(n *html.Node, link float64, heading, list, textish bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				before := f.length
				countText(c.Data, link, &f.stats)
				d := f.length - before
				if heading {
					f.headingLen += d
				}
				if list {
					f.listLen += d
				}
				if textish && d > 0 {
					f.textish = true
				}
				continue
			case html.ElementNode:
			default:
				continue
			}
			h, l := heading, list
			switch c.DataAtom {
			case atom.Script:
				continue
			case atom.P:
				f.p++
			case atom.Img:
				f.img++
			case atom.Li:
				f.li++
			case atom.Input:
				f.input++
			case atom.Object, atom.Embed, atom.Iframe:
				if videoEmbed(c) {
					f.video = true
				}
				f.embeds++
			case atom.Table:
				if dataTables[c] {
					f.dataTable = true
				}
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				h = true
			case atom.Ul, atom.Ol:
				l = true
			}
			t := textish
			switch c.DataAtom {
			case atom.Span, atom.Li, atom.Td, atom.Blockquote, atom.Dl, atom.Div, atom.Img, atom.Ol, atom.P, atom.Pre, atom.Table, atom.Ul:
				t = true
			}
			visit(c, linkWeight(c, link), h, l, t)
		}
	}
	visit(n, linkWeight(n, 0), false, false, false)
	return f
}

// randomFactsPage is a random article of the elements and texts facts
// counts: links of every weight (nested too), headings, lists, data and
// layout tables, embeds, inputs, scripts, blank and comma texts.
func randomFactsPage(rng *rand.Rand) string {
	pieces := []string{"word", " ", "two words, three, ", "\n ", "é, è", `<a href="/x">`, `<a href="#top">`,
		`<a href="/f.pdf">`, "</a>", "<p>", "</p>", "<div>", "</div>", "<div>", "</div>", "<span>", "</span>",
		"<h2>", "</h2>", "<ul><li>", "</li><li>", "</li></ul>", "<ol><li>", "</ol>", "<form>", "</form>",
		"<fieldset>", "</fieldset>", "<input>", `<img src="i.png">`, `<iframe src="https://www.youtube.com/embed/x"></iframe>`,
		`<embed src="x.swf">`, "<script>var a = 1, b;</script>", "<table><tr><td>", "</td><td>", "</td></tr></table>",
		"<table><caption>Data</caption><tr><th>A</th></tr><tr><td>", "<blockquote>", "</blockquote>", "<pre>", "</pre>",
		"<!-- a comment -->", "<br>", "<footer>", "</footer>"}
	var b strings.Builder
	b.WriteString("<html><body><div>")
	for k := rng.Intn(60); k >= 0; k-- {
		b.WriteString(pieces[rng.Intn(len(pieces))])
	}
	b.WriteString("</div></body></html>")
	return b.String()
}

// TestFactsAsWalk: facts read from the nodes collect gathered are those
// of a walk of the element's subtree, to the bit, for every element
// cleanConditionally judges, while elements (judged ones and others)
// are removed between the judgements as prepare removes them.
func TestFactsAsWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	judged := 0
	for range 2000 {
		page := randomFactsPage(rng)
		_, body := parseBody(t, page)
		dataTables := make(map[*html.Node]bool)
		var l cleanLists
		l.collect(body, dataTables, false)
		if want := markDataTables(body); !maps.Equal(dataTables, want) {
			t.Fatalf("%s: collect marks %d data tables, %d are", page, len(dataTables), len(want))
		}
		var elements []*html.Node
		for _, n := range l.nodes {
			if n.node.Type == html.ElementNode {
				elements = append(elements, n.node)
			}
		}
		for _, tag := range []atom.Atom{atom.Form, atom.Fieldset, atom.Table, atom.Ul, atom.Div} {
			at := *l.of(tag)
			for i := len(at) - 1; i >= 0; i-- {
				n := l.nodes[at[i]].node
				if n.Parent == nil || !attached(n, body) {
					continue
				}
				judged++
				if got, want := facts(l.nodes, at[i]), factsWalk(n, dataTables); got != want {
					t.Fatalf("%s\n%s: facts %+v, the walk's %+v", page, renderString(n), got, want)
				}
				// Remove this element or another one at times.
				if rng.Intn(3) == 0 {
					n.Parent.RemoveChild(n)
				} else if e := elements[rng.Intn(len(elements))]; rng.Intn(2) == 0 && e.Parent != nil && e != body {
					e.Parent.RemoveChild(e)
				}
			}
		}
	}
	if judged < 1000 {
		t.Fatalf("only %d elements judged", judged)
	}
}

// TestFactsCountTextsOnce: facts counts a text once however many judged
// blocks hold it (a text's counts are kept in its node).
func TestFactsCountTextsOnce(t *testing.T) {
	_, body := parseBody(t, "<html><body><div><div><div><p>Some words, a comma.</p></div></div></div></body></html>")
	var l cleanLists
	l.collect(body, map[*html.Node]bool{}, false)
	for i := len(l.div) - 1; i >= 0; i-- {
		facts(l.nodes, l.div[i])
	}
	for _, n := range l.nodes {
		if n.kind&factText != 0 {
			if n.length != int32(len("Some words, a comma.")) || n.commas != 1 {
				t.Errorf("text %q: length %d commas %d", n.node.Data, n.length, n.commas)
			}
			n.node.Data = "changed" // read again, facts would see it
		}
	}
	if f := facts(l.nodes, l.div[0]); f.length != len("Some words, a comma.") {
		t.Errorf("facts read a text again: length %d", f.length)
	}
}

// TestFactNodesArray: an attempt's article has at most the nodes its
// copy made, so cleanLists.nodes takes its array once, of that size,
// and the array goes back to factNodesPool without pointers to the
// page's nodes.
func TestFactNodesArray(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for range 300 {
		page := randomFactsPage(rng)
		_, body := parseBody(t, page)
		r := &readable{body: body, bodyLen: -1, bodyOver: -1}
		r.attempt(flagStripUnlikely | flagWeightClasses | flagCleanConditionally)
		if r.factUsed > r.made || r.made > 0 && cap(r.factNodes) != r.made {
			t.Fatalf("%s: %d nodes of %d made, array of %d", page, r.factUsed, r.made, cap(r.factNodes))
		}
	}
	checked := 0
	for range 50 {
		_, body := parseBody(t, randomFactsPage(rng))
		readableContent(body.Parent.Parent, nil, "", &extractFacts{})
		nodes := factNodesPool.Get().(*[]factNode)
		b := (*nodes)[:cap(*nodes)]
		for i := range b {
			if b[i].node != nil {
				t.Fatalf("node %d of %d in the pool: %v", i, len(b), b[i].node)
			}
		}
		if len(b) > 0 {
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no array came back from the pool")
	}
}

// removeThreeWalks is removeNonContent as the three walks it replaced.
func removeThreeWalks(r *readable, art *html.Node) {
	removeTags(art, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Object, atom.Embed, atom.Iframe:
			return !videoEmbed(n)
		case atom.Footer, atom.Link, atom.Aside, atom.Input, atom.Textarea, atom.Select, atom.Button:
			return true
		}
		return false
	})
	for c := art.FirstChild; c != nil; c = c.NextSibling {
		removeTags(c, func(n *html.Node) bool {
			if !mayNameShare(n) {
				return false
			}
			m := matchString(n)
			return m != "" && shareHint(m) && textStats(n, nil).length < 500
		})
	}
	removeTags(art, func(n *html.Node) bool {
		return (n.DataAtom == atom.H1 || n.DataAtom == atom.H2) && r.classWeight(n) < 0
	})
}

// TestRemoveNonContentAsThreeWalks: the one walk removes what the three
// did, on random articles of share boxes (short, and long but for a
// footer, an aside or an input inside), headings named as boilerplate,
// footers, asides, form controls and embeds, nested in each other.
func TestRemoveNonContentAsThreeWalks(t *testing.T) {
	pieces := []string{"word", " ", "two words, three, ", `<div class="share">`, `<div class="post-share">`,
		`<h2 class="comment">`, "</h2>", `<h1 class="sidebar">`, "</h1>", "<h2>", "<footer>", "</footer>",
		"<aside>", "</aside>", "<input>", "<button>Go</button>", `<iframe src="https://www.youtube.com/embed/x"></iframe>`,
		`<iframe src="https://ads.example/x"></iframe>`, "<div>", "</div>", "<p>", "</p>", "<span>", "</span>",
		`<a href="/x">`, "</a>", strings.Repeat("long text ", 30), `<section class="sharedaddy">`, "</section>"}
	rng := rand.New(rand.NewSource(11))
	removed := 0
	for range 3000 {
		var b strings.Builder
		b.WriteString("<html><body><div>")
		for k := rng.Intn(40); k >= 0; k-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		b.WriteString("</div></body></html>")
		_, one := parseBody(t, b.String())
		_, three := parseBody(t, b.String())
		before := renderString(one)
		r := &readable{flags: flagWeightClasses}
		r.removeNonContent(one, 1)
		removeThreeWalks(r, three)
		if got, want := renderString(one), renderString(three); got != want {
			t.Fatalf("%s\none walk:    %s\nthree walks: %s", b.String(), got, want)
		}
		if renderString(one) != before {
			removed++
		}
	}
	if removed < 1000 {
		t.Fatalf("only %d articles changed", removed)
	}
}

// markDataTables returns the tables of data of n's subtree, as a walk
// of their own marked them before collect did.
func markDataTables(n *html.Node) map[*html.Node]bool {
	data := make(map[*html.Node]bool)
	var mark func(n *html.Node)
	mark = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Table && isDataTable(c) {
				data[c] = true
			}
			mark(c)
		}
	}
	mark(n)
	return data
}
