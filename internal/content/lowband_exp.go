package content

import (
	"os"
	"strconv"

	"golang.org/x/net/html"
)

// Experiment switches (items4), removed before the final commit.
var (
	expLow    = os.Getenv("I4_LOW")
	expLo     = envF("I4_LO", 0.25)
	expF      = envF("I4_F", 5)
	expLayout = os.Getenv("I4_LAYOUT") != "0"
	expShare  = envF("I4_SHARE", 0.4)
	expHeaded = envF("I4_HEADED", 0)
	expMenu   = envF("I4_MENU", 0)
	expOut    = os.Getenv("I4_OUT") == "1"
	expMean   = envF("I4_MEAN", 0)
	expServ   = os.Getenv("I4_SERV") == "1"
	expArtP   = envF("I4_ARTP", 1)
)

func envF(k string, d float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(k), 64); err == nil {
		return v
	}
	return d
}

// expLowContent is the low band applied last (I7's form).
func expLowContent(root, art *html.Node, probs [len(PageTypes)]float64, bodyWords int) *html.Node {
	if expLow != "last" {
		return nil
	}
	if p := probs[typeIndex(TypeCollection)] + probs[typeIndex(TypeListing)]; p < expLo || p >= itemsProb {
		return nil
	}
	if probs[typeIndex(TypeArticle)] >= expArtP {
		return nil
	}
	body := findBody(root)
	if body == nil {
		return nil
	}
	grid, words, run := itemRunOf(body, expLayout)
	if grid == nil || float64(run.headed) < expHeaded*float64(run.n) {
		return nil
	}
	k := itemsRegionCopy(body, grid, words, art, expF)
	if k != nil && expOut && art != nil && !wordsWithin(textOf(art), textOf(k)) {
		return nil
	}
	if expMean > 0 && run.n > 0 && float64(words) > expMean*float64(run.n) {
		return nil
	}
	if expServ && probs[typeIndex(TypeService)] >= probs[typeIndex(TypeCollection)]+probs[typeIndex(TypeListing)] {
		return nil
	}
	if k != nil && expMenu > 0 && art != nil && float64(run.linkWords) >= expMenu*float64(words) && !wordsWithin(textOf(art), textOf(k)) {
		return nil
	}
	if k == nil || float64(countWords(textOf(k))) < expShare*float64(bodyWords) {
		return nil
	}
	return k
}

// expItemsGate is itemsProb, or I4_LO with I4_LOW=bare.
func expItemsGate() float64 {
	if expLow == "bare" {
		return expLo
	}
	return itemsProb
}
