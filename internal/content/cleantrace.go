package content

import (
	"fmt"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// CleanTrace, when set, is told of every element the preparation of a
// readability attempt's article (prepare) removes, before it goes: art
// is the attempt's article, why the rule that removes n (for the
// conditional cleaning the tag and every condition that holds, the
// first deciding). readableContent then tells it the article it
// returns, with why "returned" and n nil. A switch for the tools of
// bench/content (cleanwhy), nil in the service: the pipeline is the
// same with it, but slower, and calls to it are not safe for
// concurrent use.
var CleanTrace func(art *html.Node, why string, n *html.Node)

// traceClean tells CleanTrace, when set, that n goes from art for why.
func traceClean(art *html.Node, why string, n *html.Node) {
	if CleanTrace != nil {
		CleanTrace(art, why, n)
	}
}

// cleanWhy names the conditions of boilerplate that hold for n, which
// boilerplate removes: the tag, then each condition that holds, the
// first being the one that decided.
func (r *readable) cleanWhy(n *html.Node, tag atom.Atom, lists *cleanLists, at int32) string {
	f := facts(lists.nodes, at)
	isList := tag == atom.Ul || tag == atom.Ol
	if !isList && f.length > 0 && float64(f.listLen)/float64(f.length) > 0.9 {
		isList = true
	}
	weight := r.classWeight(n)
	why := tag.String()
	if weight < 0 {
		ld := 0.0
		if f.length > 0 {
			ld = f.linkLen / float64(f.length)
		}
		return why + fmt.Sprintf(" weight<0 (weight %d, p %d, li %d, img %d, commas %d, length %d, links %.2f)",
			weight, f.p, f.li, f.img, f.commas, f.length, ld)
	}
	if f.length <= 20 && adOrLoading(collapse(nodeText(n))) {
		return why + " ad"
	}
	linkDensity, headingDensity := 0.0, 0.0
	if f.length > 0 {
		linkDensity = f.linkLen / float64(f.length)
		headingDensity = float64(f.headingLen) / float64(f.length)
	}
	figure := hasAncestor(n, atom.Figure, 3)
	for _, c := range []struct {
		holds bool
		name  string
	}{
		{!figure && f.img > 1 && float64(f.p)/float64(f.img) < 0.5, "img>2p"},
		{!isList && f.li-100 > f.p, "li>p+100"},
		{f.input > f.p/3, "input>p/3"},
		{!isList && !figure && headingDensity < 0.9 && f.length < 25 && (f.img == 0 || f.img > 2) && linkDensity > 0, "short linked"},
		{!isList && weight < 25 && linkDensity > 0.2, "links>0.2"},
		{weight >= 25 && linkDensity > 0.5, "links>0.5 weight>=25"},
		{f.embeds == 1 && f.length < 75, "one embed short"},
		{f.embeds > 1, "embeds>1"},
		{f.img == 0 && !f.textish, "no textish"},
	} {
		if c.holds {
			why += " " + c.name
		}
	}
	return why
}
