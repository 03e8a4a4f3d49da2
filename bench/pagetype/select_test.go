package main

import (
	"fmt"
	"math"
	"testing"

	"webacq/internal/content"
)

// TestSettingAllowed checks the per-page guard of the selector's
// cross-validation: a setting whose groups all gain on the folds is
// still refused when one readability or trafilatura-eval page loses
// more than selectPageLoss.
func TestSettingAllowed(t *testing.T) {
	ok := setting{gain: 0.01, worst: 0, pageLoss: 0}
	if !ok.allowed() {
		t.Error("a setting that lowers nothing is refused")
	}
	down := setting{gain: 0.01, worst: -0.002}
	if down.allowed() {
		t.Error("a setting that lowers a group is allowed")
	}
	onePage := setting{gain: 0.01, worst: 0.001, pageLoss: 0.6}
	if onePage.allowed() {
		t.Error("a setting that costs one readability page 0.6 is allowed")
	}
}

// TestFitPagesTakeTheItemRegion checks which half-A pages the fit reads:
// pages the selector judges, and pages whose current choice is the item
// profile's region (locked: HTML keeps it), under the gate; not the
// forum profile's thread, not half B, not pages over the gate.
func TestFitPagesTakeTheItemRegion(t *testing.T) {
	probs := func(article float64) []float64 {
		p := make([]float64, 7)
		p[0] = article
		p[4] = 1 - article // collection
		return p
	}
	cur := func(kind string) []cand { return []cand{{kind: kindIndex(kind), current: true}} }
	judged := &candPage{name: "judged", halfA: true, probs: probs(0.1), cands: cur("article")}
	items := &candPage{name: "items", halfA: true, locked: true, probs: probs(0.1), cands: cur("items")}
	thread := &candPage{name: "thread", halfA: true, locked: true, probs: probs(0.1), cands: cur("forum")}
	heldOut := &candPage{name: "heldout", probs: probs(0.1), cands: cur("article")}
	article := &candPage{name: "article", halfA: true, probs: probs(0.9), cands: cur("article")}
	got := fitPages([]*candPage{judged, items, thread, heldOut, article}, 0.4, 0)
	if len(got) != 2 || got[0] != judged || got[1] != items {
		names := []string{}
		for _, cp := range got {
			names = append(names, cp.name)
		}
		t.Errorf("fitPages = %v, want [judged items]", names)
	}
}

// TestReadPrior reads the committed select_model.go back: a row of
// weights per candidate kind, each as long as the selector's features.
func TestReadPrior(t *testing.T) {
	w, err := readPrior("../../internal/content/select_model.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != len(content.CandidateKinds) || len(w[0]) != len(content.SelectFeatureNames) {
		t.Errorf("readPrior: %d rows of %d", len(w), len(w[0]))
	}
}

// TestPriorStartsTheFit: with a prior the fit is pulled toward the
// prior's weights rather than toward zero (what -prior is for: a refit
// that moves from the selector in use only as far as the pages ask).
func TestPriorStartsTheFit(t *testing.T) {
	d := len(content.SelectFeatureNames)
	var cps []*candPage
	for i := range 40 {
		cp := &candPage{name: fmt.Sprint(i), cur: 0.5}
		f := make([]float64, d)
		f[0] = 1
		f[1] = float64(i%7) / 7
		f[2] = float64(i%5) / 5
		cp.cands = []cand{{kind: 1, f: f, f1: 0.5 + 0.4*f[1]}}
		cps = append(cps, cp)
	}
	prior := make([][]float64, len(content.CandidateKinds))
	for k := range prior {
		prior[k] = make([]float64, d)
		prior[k][0], prior[k][1], prior[k][2] = 0.3, -0.7, 0.2
	}
	defer func() { selectPrior = nil }()
	free := fitSelect(cps, 1, true)
	selectPrior = prior
	pulled := fitSelect(cps, 1, true)
	for i := 1; i <= 2; i++ {
		a, b := pulled[1][i], free[1][i]
		if math.IsNaN(a) || math.IsInf(a, 0) || !(math.Abs(a-prior[1][i]) < math.Abs(b-prior[1][i])) {
			t.Errorf("weight %d: %v with the prior, %v without; the prior's %v", i, a, b, prior[1][i])
		}
	}
}

// TestFitBagged checks the bagged fit: one bag is the plain fit, the
// same seed gives the same weights, and the mean of many fits on
// resamples of pages that all say "the h1 region gains" still prefers
// the h1 region to the article.
func TestFitBagged(t *testing.T) {
	d := len(content.SelectFeatureNames)
	var cps []*candPage
	for i := 0; i < 40; i++ {
		f := func(v float64) []float64 {
			x := make([]float64, d)
			x[0] = 1
			x[1] = v + float64(i%5)/10
			return x
		}
		cps = append(cps, &candPage{name: fmt.Sprint(i), halfA: true, cur: 0.4, cands: []cand{
			{kind: 0, f: f(1), f1: 0.4, current: true},
			{kind: kindIndex("h1"), f: f(2), f1: 0.9},
		}})
	}
	defer func(b int, s int64) { selectBags, selectSeed = b, s }(selectBags, selectSeed)
	selectBags = 1
	one, plain := fitBagged(cps, 0.1, false, true), fitSelect(cps, 0.1, true)
	for k := range one {
		for i := range one[k] {
			if one[k][i] != plain[k][i] {
				t.Fatalf("one bag: weight %d,%d is %g, the plain fit's %g", k, i, one[k][i], plain[k][i])
			}
		}
	}
	selectBags, selectSeed = 8, 3
	a, b := fitBagged(cps, 0.1, false, true), fitBagged(cps, 0.1, false, true)
	for k := range a {
		for i := range a[k] {
			if a[k][i] != b[k][i] || math.IsNaN(a[k][i]) {
				t.Fatalf("same seed: weight %d,%d %g then %g", k, i, a[k][i], b[k][i])
			}
		}
	}
	if got := a.chooseIdx(cps[0], 0.05); got != 1 {
		t.Errorf("the bagged selector takes candidate %d, want the h1 region (1)", got)
	}
}
