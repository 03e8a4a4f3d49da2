package content

import (
	"math"
	"strings"
	"unicode"

	"golang.org/x/net/html"
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
	nConfidenceFeatures = cProfile + 1
)

// ConfidenceFeatureNames names the confidence model's inputs in order.
var ConfidenceFeatureNames = [nConfidenceFeatures]string{
	"main_words", "body_words", "main_share", "fallback", "readable_ok", "link_density", "margin", "close",
	"lines", "words_per_line", "thin",
	"p_article", "p_documentation", "p_forum", "p_product", "p_collection", "p_listing", "p_service", "p_max", "profile",
}

type confidenceFeatures [nConfidenceFeatures]float64

func confidenceInputs(node *html.Node, text string, words, bodyWords int, x *extractFacts, probs [len(PageTypes)]float64) confidenceFeatures {
	var f confidenceFeatures
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
	return f
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
