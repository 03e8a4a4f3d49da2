package main

import (
	"fmt"
	"go/format"
	"math"
	"reflect"
	"testing"

	"webacq/internal/content"
)

// andRows are rows whose label is 1 only when both of the first two
// features are over 0.5: what a sum of the two cannot tell.
func andRows() (xs [][]float64, ys, ws []float64) {
	for i := range 10 {
		for j := range 10 {
			a, b := float64(i)/9, float64(j)/9
			y := 0.0
			if a > 0.5 && b > 0.5 {
				y = 1
			}
			xs = append(xs, []float64{a, b, float64((i*7+j)%5) / 4})
			ys = append(ys, y)
			ws = append(ws, 1)
		}
	}
	return xs, ys, ws
}

// TestFitGBDTLearnsAnd: depth-2 trees fit the interaction, and a refit
// on the same rows gives the same trees, node for node.
func TestFitGBDTLearnsAnd(t *testing.T) {
	xs, ys, ws := andRows()
	p := gbdtParams{depth: 2, trees: 60, minLeaf: 5, rate: 0.3}
	m := fitGBDT(xs, ys, ws, p)
	for i, x := range xs {
		if got := m.predict(x, -1); math.Abs(got-ys[i]) > 0.1 {
			t.Fatalf("row %v: predicted %.3f, label %.0f", x, got, ys[i])
		}
	}
	if again := fitGBDT(xs, ys, ws, p); !reflect.DeepEqual(m, again) {
		t.Error("two fits on the same rows differ")
	}
	// The first n trees: the base alone, then closer and closer.
	if got := m.predict(xs[99], 0); got != m.base {
		t.Errorf("no trees: %v, want the base %v", got, m.base)
	}
	if e5, e60 := math.Abs(m.predict(xs[99], 5)-1), math.Abs(m.predict(xs[99], -1)-1); !(e60 < e5) {
		t.Errorf("error after 5 trees %.3f, after 60 %.3f", e5, e60)
	}
}

// TestFitGBDTMinLeaf: no leaf holds fewer rows than minLeaf, and a
// split's threshold falls strictly between the values it separates.
func TestFitGBDTMinLeaf(t *testing.T) {
	xs, ys, ws := andRows()
	m := fitGBDT(xs, ys, ws, gbdtParams{depth: 3, trees: 10, minLeaf: 20, rate: 0.1})
	for _, tree := range m.trees {
		count := make([]int, len(tree))
		for _, x := range xs {
			i := 0
			for tree[i].feat >= 0 {
				if x[tree[i].feat] < tree[i].thr {
					i = tree[i].left
				} else {
					i = tree[i].right
				}
			}
			count[i]++
		}
		for i, nd := range tree {
			if nd.feat < 0 && count[i] < 20 {
				t.Fatalf("a leaf of %d rows", count[i])
			}
		}
	}
}

// TestTreesTakeTheRegion: on pages where the h1 region wins only when
// the page looks like a listing and the article holds a small share of
// the region, the fitted trees take the region there and keep the
// article elsewhere.
func TestTreesTakeTheRegion(t *testing.T) {
	d := len(content.SelectFeatureNames)
	list := -1
	for i, n := range content.SelectFeatureNames {
		if n == "p(listing)" {
			list = i
		}
	}
	if list < 0 {
		t.Fatal("no p(listing) among the selector's features")
	}
	var cps []*candPage
	for i := range 80 {
		listing, small := i%2 == 0, i%4 < 2
		f := func(kind string) []float64 {
			x := make([]float64, d)
			x[0] = 1
			if listing {
				x[list] = 0.8
			}
			// Its words in the article: all of the article's, a small
			// share of the region's when the article is one block of
			// the list.
			x[6] = 1
			if kind == "h1" {
				x[6] = 0.9
				if small {
					x[6] = 0.2
				}
			}
			x[1] = float64(i%5) / 5
			return x
		}
		h1F1 := 0.3
		if listing && small {
			h1F1 = 0.9
		}
		cps = append(cps, &candPage{name: fmt.Sprint(i), halfA: true, cur: 0.6, cands: []cand{
			{kind: 0, f: f("article"), f1: 0.6, current: true},
			{kind: kindIndex("h1"), f: f("h1"), f1: h1F1},
		}})
	}
	m := fitTrees(cps, gbdtParams{depth: 2, trees: 100, minLeaf: 5, rate: 0.1}, nil)
	for i, cp := range cps[:4] {
		want := -1
		if i == 0 { // listing and small
			want = 1
		}
		if got := m.chooseTrees(cp, -1, nil, 1, 0.05); got != want {
			t.Errorf("page %d: took %d, want %d", i, got, want)
		}
	}
}

// TestTreeSource: the generated source is Go that gofmt accepts, and
// writes every split and leaf.
func TestTreeSource(t *testing.T) {
	xs, ys, ws := andRows()
	for i := range xs {
		xs[i] = append(xs[i], make([]float64, numTreeFeatures-len(xs[i]))...)
	}
	m := fitGBDT(xs, ys, ws, gbdtParams{depth: 2, trees: 3, minLeaf: 5, rate: 0.3})
	src := treeSource(m, 100, 100, treeSetting{setting: setting{gate: 0.4, margin: 0.045}, p: gbdtParams{depth: 2, trees: 3, minLeaf: 5, rate: 0.3}, alpha: 1}, "fixed")
	if _, err := format.Source(src); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
}
