package content

import (
	"math"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Confidence is the extractor's estimate, 0 to 1, of how well it found
// the main content: a logistic model, trained offline against the
// per-page word F1 of the labelled pages of ../shared/corpus/wcxb-dev
// (`go run ./bench/pagetype -train confidence`), over what the
// extraction itself shows: the share of the page's words it kept, the
// link density of what it kept, whether the readability pass reached
// its length or trafilatura's fallback took over, how close the
// runner-up candidate scored, and the page type with its probability.

// extractFacts are what the main-content extraction tells about itself.
type extractFacts struct {
	readableOK bool    // a readability attempt reached minArticleChars
	fallback   bool    // trafilatura's content was taken
	margin     float64 // runner-up candidate score over the best's
	close      int     // runners-up within 0.75 of the best
	profile    bool    // a page-type profile replaced the article
	// sel is what the candidate selector predicted on a page it judged.
	sel selectFacts
	// listing is set by the caller before extraction: the page is taken
	// for a listing, and the readability pass spares its runs of items
	// (inItemRun).
	listing bool
	// tallies, set by the extraction, are the readability pass's counts
	// of the page's texts, which the selector's measures read again
	// (the caller gives them back: done).
	tallies *tallies
	// nodes are the readability pass's copies (the caller gives them
	// back when no node of the page is read again: done).
	nodes *nodeArena
}

func (x *extractFacts) note(r *readable) {
	if x != nil {
		x.margin, x.close = r.margin, r.close
	}
}

// confidence feature indexes; ConfidenceFeatureNames keeps their names.
const (
	cMainWords = iota
	cBodyWords
	cMainShare
	cFallback
	cReadableOK
	cLinkDensity
	cMargin
	cClose
	cLines
	cWordsPerLine
	cThin
	cTypeProb
	cTypeMax            = cTypeProb + len(PageTypes)
	cProfile            = cTypeMax + 1
	cJudged             = cProfile + 1 // the selector judged the page
	cSelChosen          = cJudged + 1  // its predicted F1 of its choice
	cSelGap             = cSelChosen + 1
	cH1In               = cSelGap + 1 // the page's <h1> text is in the content
	cNoH1               = cH1In + 1
	cTypeEntropy        = cNoH1 + 1
	cShortShare         = cTypeEntropy + 1 // words in lines under shortLineWords
	cProseShare         = cShortShare + 1  // words in lines of proseLineWords or more
	cRunShare           = cProseShare + 1  // text in runs of repeated siblings
	cHeadings           = cRunShare + 1    // log headings
	cHeadingRate        = cHeadings + 1    // headings per 100 words
	cDupLines           = cHeadingRate + 1 // share of lines that repeat an earlier line
	cPShare             = cDupLines + 1
	cLiShare            = cPShare + 1
	cControls           = cLiShare + 1
	cTimes              = cControls + 1
	cImages             = cTimes + 1
	cTableShare         = cImages + 1
	cNumLines           = cTableShare + 1
	cSelNear            = cNumLines + 1
	cSelN               = cSelNear + 1
	cSelMoved           = cSelN + 1
	cBefore             = cSelMoved + 1 // body words before the content's first text
	cAfter              = cBefore + 1   // body words after its last text
	cPlaced             = cAfter + 1    // both texts were found in the body's list
	nConfidenceFeatures = cPlaced + 1
)

// ConfidenceFeatureNames names the confidence model's inputs in order.
var ConfidenceFeatureNames = [nConfidenceFeatures]string{
	"main_words", "body_words", "main_share", "fallback", "readable_ok", "link_density", "margin", "close",
	"lines", "words_per_line", "thin",
	"p_article", "p_documentation", "p_forum", "p_product", "p_collection", "p_listing", "p_service", "p_max", "profile",
	"judged", "sel_chosen", "sel_gap", "h1_in", "no_h1", "type_entropy", "short_share", "prose_share",
	"run_share", "headings", "heading_rate", "dup_lines", "p_share", "li_share", "controls", "times", "images", "table_share", "num_lines", "sel_near", "sel_n", "sel_moved", "before", "after", "placed",
}

type confidenceFeatures [nConfidenceFeatures]float64

func confidenceInputs(node *html.Node, text string, words int, sig *signals, x *extractFacts, probs [len(PageTypes)]float64, texts []textCount) confidenceFeatures {
	var f confidenceFeatures
	if first, last := edgeText(node, true), edgeText(node, false); first != "" && last != "" {
		fi, li := -1, -1
		for i, t := range texts {
			if fi < 0 && t.text == first {
				fi = i
			}
			if t.text == last {
				li = i
			}
		}
		if fi >= 0 && li >= fi {
			before, after, total := 0, 0, 0
			for i, t := range texts {
				total += t.words
				if i < fi {
					before += t.words
				} else if i > li {
					after += t.words
				}
			}
			if total > 0 {
				f[cBefore] = float64(before) / float64(total)
				f[cAfter] = float64(after) / float64(total)
				f[cPlaced] = 1
			}
		}
	}
	bodyWords := sig.bodyWords
	f[cMainWords] = math.Log1p(float64(words))
	f[cBodyWords] = math.Log1p(float64(bodyWords))
	if bodyWords > 0 {
		f[cMainShare] = min(1, float64(words)/float64(bodyWords))
	}
	if x.fallback {
		f[cFallback] = 1
	}
	if x.readableOK {
		f[cReadableOK] = 1
	}
	if st := textStats(node, nil); st.length > 0 {
		f[cLinkDensity] = st.linkLen / float64(st.length)
	}
	f[cMargin] = min(1, x.margin)
	f[cClose] = float64(x.close)
	lines := strings.Count(text, "\n") + 1
	f[cLines] = math.Log1p(float64(lines))
	f[cWordsPerLine] = math.Log1p(float64(words) / float64(lines))
	if words < thinWords {
		f[cThin] = 1
	}
	hi := 0.0
	for k, p := range probs {
		f[cTypeProb+k] = p
		hi = max(hi, p)
	}
	f[cTypeMax] = hi
	if x.profile {
		f[cProfile] = 1
	}
	if x.sel.judged {
		f[cJudged] = 1
		f[cSelChosen] = x.sel.chosen
		f[cSelGap] = x.sel.chosen - x.sel.other
		f[cSelNear] = float64(x.sel.near)
		f[cSelN] = float64(x.sel.n)
		if x.sel.moved {
			f[cSelMoved] = 1
		}
	}
	if h1 := collapse(sig.h1); h1 == "" {
		f[cNoH1] = 1
	} else if strings.Contains(text, h1) {
		f[cH1In] = 1
	}
	ent := 0.0
	for _, p := range probs {
		if p > 0 {
			ent -= p * math.Log(p)
		}
	}
	f[cTypeEntropy] = ent / math.Log(float64(len(probs)))
	if words > 0 {
		short, prose := lineShares(text)
		f[cShortShare] = float64(short) / float64(words)
		f[cProseShare] = float64(prose) / float64(words)
	}
	var sh shape
	sh.walk(node, false)
	if sh.text > 0 {
		f[cRunShare] = min(1, float64(sh.runText)/float64(sh.text))
	}
	f[cHeadings] = math.Log1p(float64(sh.headings))
	if words > 0 {
		f[cHeadingRate] = min(1, float64(sh.headings)*100/float64(words))
	}
	f[cDupLines] = dupLines(text)
	if sh.text > 0 {
		f[cPShare] = float64(sh.pText) / float64(sh.text)
		f[cLiShare] = float64(sh.liText) / float64(sh.text)
	}
	f[cControls] = math.Log1p(float64(sh.controls))
	f[cTimes] = math.Log1p(float64(sh.times))
	f[cImages] = math.Log1p(float64(sh.images))
	if sh.text > 0 {
		f[cTableShare] = float64(sh.tableText) / float64(sh.text)
	}
	f[cNumLines] = numLines(text)
	return f
}

// shape is what one walk of the content tells of its structure: its
// text's length in bytes, that of the text inside runs of repeated
// siblings (minRunSiblings or more elements in a row with the same tag
// and class attribute, each holding text: cards, comments, teasers),
// and its headings.
type shape struct {
	text, runText, headings  int
	pText, liText, tableText int
	controls, times, images  int
}

const minRunSiblings = 3

// walk adds n's subtree to sh; inRun tells that n lies in a run
// already counted. It returns the length of n's text. Each node is
// visited once, and a run is found by comparing each child with the
// previous one only.
func (sh *shape) walk(n *html.Node, inRun bool) int {
	total := 0
	var runStart *html.Node
	runCount, runTextLen := 0, 0
	flush := func() {
		if runCount >= minRunSiblings && !inRun {
			sh.runText += runTextLen
		}
		runStart, runCount, runTextLen = nil, 0, 0
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			l := len(strings.TrimSpace(c.Data))
			total += l
			sh.text += l
		case html.ElementNode:
			switch c.DataAtom {
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				sh.headings++
			case atom.Form, atom.Input, atom.Button, atom.Select, atom.Textarea:
				sh.controls++
			case atom.Time:
				sh.times++
			case atom.Img, atom.Picture:
				sh.images++
			}
			same := runStart != nil && c.DataAtom == runStart.DataAtom && c.Data == runStart.Data && attr(c, "class") == attr(runStart, "class")
			if !same {
				flush()
			}
			// A child is walked as part of a run when it follows one of
			// its kind; the first of a run is walked before the run is
			// known, so its text is added when the run is flushed.
			l := sh.walk(c, inRun || same && runCount+1 >= minRunSiblings)
			total += l
			switch c.DataAtom {
			case atom.P:
				sh.pText += l
			case atom.Li:
				sh.liText += l
			case atom.Table:
				sh.tableText += l
			}
			if l == 0 {
				flush()
				continue
			}
			if !same {
				runStart = c
			}
			runCount++
			runTextLen += l
		}
	}
	flush()
	return total
}

// dupLines returns the share of text's lines that repeat an earlier
// line of it.
func dupLines(text string) float64 {
	seen := make(map[string]struct{})
	lines, dup := 0, 0
	for line := range strings.SplitSeq(text, "\n") {
		if line == "" {
			continue
		}
		lines++
		if _, ok := seen[line]; ok {
			dup++
		} else {
			seen[line] = struct{}{}
		}
	}
	if lines == 0 {
		return 0
	}
	return float64(dup) / float64(lines)
}

// lineShares returns the words of text's lines shorter than
// shortLineWords and those of its lines of proseLineWords or more.
func lineShares(text string) (short, prose int) {
	for line := range strings.SplitSeq(text, "\n") {
		w := countWords(line)
		if w < shortLineWords {
			short += w
		} else if w >= proseLineWords {
			prose += w
		}
	}
	return short, prose
}

func confidenceOf(f *confidenceFeatures) float64 {
	s := confidenceBias
	for i, x := range f {
		if confidenceScale[i] > 0 { // a feature newer than the weights
			s += confidenceWeights[i] * (x - confidenceMean[i]) / confidenceScale[i]
		}
	}
	c := 1 / (1 + math.Exp(-s))
	return math.Round(c*100) / 100
}

// textConfidence rates a document whose whole text is its content (PDF,
// plain text) by the share of its words that read as words: mostly
// letters, as opposed to the debris of a broken text layer.
func textConfidence(text string) float64 {
	words, good := 0, 0
	for w := range strings.FieldsSeq(text) {
		words++
		letters, n := 0, 0
		for _, r := range w {
			n++
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f && unicode.IsLetter(r) || r >= '0' && r <= '9' {
				letters++
			}
		}
		if letters*2 >= n {
			good++
		}
	}
	if words == 0 {
		return 0
	}
	c := float64(good) / float64(words)
	if words < thinWords {
		c *= float64(words) / thinWords
	}
	return math.Round(c*100) / 100
}

// numLines returns the share of text's lines that hold no letter.
func numLines(text string) float64 {
	lines, num := 0, 0
	for line := range strings.SplitSeq(text, "\n") {
		if line == "" {
			continue
		}
		lines++
		if strings.IndexFunc(line, unicode.IsLetter) < 0 {
			num++
		}
	}
	if lines == 0 {
		return 0
	}
	return float64(num) / float64(lines)
}

// edgeText returns the first (or last) text of n's subtree holding a
// word.
func edgeText(n *html.Node, first bool) string {
	c := n.FirstChild
	if !first {
		c = n.LastChild
	}
	for c != nil {
		if c.Type == html.TextNode && countWords(c.Data) > 0 {
			return c.Data
		}
		if c.Type == html.ElementNode {
			if t := edgeText(c, first); t != "" {
				return t
			}
		}
		if first {
			c = c.NextSibling
		} else {
			c = c.PrevSibling
		}
	}
	return ""
}
