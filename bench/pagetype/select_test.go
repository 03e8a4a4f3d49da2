package main

import "testing"

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
