package content

// Experiment switches of branch service2 (issue 20, service pages),
// read from the environment; none is on by default, and none was kept
// (bench/content/README.md, "service2"). The next commit removes them.
//
//	S2_R      which pages join the readability pass's sibling sections:
//	          R1 pages typed service; R6 those and pages typed article
//	          with P(article) < 0.6; R4 every page not typed article;
//	          ALL every page; RUNALL every page, only siblings of a run
//	          (inItemRun) of the best's first class word; RUNSVC R1 plus
//	          RUNALL
//	S2_SHARE  the least share of the best candidate's score a sibling
//	          of its tag scores to join (0.5 unless set)
//	S2_CTA    set: on pages typed service, blocks named only as calls
//	          to action (kindCTA) of S2_CTALEN characters or more stay

import (
	"os"
	"strconv"

	"golang.org/x/net/html"
)

var (
	s2Var       = os.Getenv("S2_R")
	s2Share, _  = strconv.ParseFloat(os.Getenv("S2_SHARE"), 64)
	s2CTA       = os.Getenv("S2_CTA") != ""
	s2CTALen, _ = strconv.Atoi(os.Getenv("S2_CTALEN"))
)

// s2Sections tells whether S2_R joins sibling sections on a page of
// most probable type typ.
func s2Sections(typ int, probs [len(PageTypes)]float64) bool {
	svc := typ == typeIndex(TypeService)
	switch s2Var {
	case "R1":
		return svc
	case "R6":
		return svc || typ == typeIndex(TypeArticle) && probs[typ] < 0.6
	case "R4":
		return typ != typeIndex(TypeArticle)
	case "ALL", "RUNALL", "RUNSVC":
		return true
	}
	return false
}

// sectionSibling tells whether c, a sibling of the best candidate best
// of score bestScore, joins it as another section of the page.
func (r *readable) sectionSibling(c, best *html.Node, bestScore float64) bool {
	if c.DataAtom != best.DataAtom || c.Data != best.Data {
		return false
	}
	if s2Var == "RUNALL" || s2Var == "RUNSVC" && !r.svc {
		k := itemClass(attr(c, "class"))
		if k == "" || k != itemClass(attr(best, "class")) || !inItemRun(best) {
			return false
		}
	}
	s, ok := r.scores[c]
	if !ok || s <= 0 {
		return false
	}
	share := s2Share
	if share == 0 {
		share = 0.5
	}
	return s >= share*bestScore
}
