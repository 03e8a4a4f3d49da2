package content

import (
	"math"
	"math/rand"
	"testing"
)

// handTrees are two hand-built trees: the first splits on the words
// (feature sWords) at 3, then on the item kind's indicator; the second
// is one leaf.
var handTrees = []treeNode{
	{sWords, 3, 1, 2},
	{leaf, -0.5, 0, 0},
	{uint8(numSelectFeatures + kItems), 0.5, 3, 4},
	{leaf, 0.25, 0, 0},
	{leaf, 1, 0, 0},
	// the second tree
	{leaf, 0.125, 0, 0},
}

var handRoots = []uint16{0, 5}

// TestTreesScoreHandBuilt reads the hand-built trees on hand-built
// features: the base plus one leaf of each tree.
func TestTreesScoreHandBuilt(t *testing.T) {
	var f selectFeatures
	for _, c := range []struct {
		words float64
		kind  int
		want  float64
	}{
		{2, kItems, 0.1 - 0.5 + 0.125},
		{3, kItems, 0.1 + 1 + 0.125}, // 3 is not under 3: right
		{5, kBody, 0.1 + 0.25 + 0.125},
		{5, kItems, 0.1 + 1 + 0.125},
	} {
		f[sWords] = c.words
		if got := treesScore(handTrees, handRoots, 0.1, &f, c.kind); got != c.want {
			t.Errorf("words %g kind %s: %v, want %v", c.words, CandidateKinds[c.kind], got, c.want)
		}
	}
	// Words anywhere in [2, 5]: the larger leaf of each side.
	lo, hi := f, f
	lo[sWords], hi[sWords] = 2, 5
	if got, want := treesBound(handTrees, handRoots, 0.1, kBody, &lo, &hi), 0.1+0.25+0.125; got != want {
		t.Errorf("bound for the body: %v, want %v", got, want)
	}
	if got, want := treesBound(handTrees, handRoots, 0.1, kItems, &lo, &hi), 0.1+1+0.125; got != want {
		t.Errorf("bound for the items: %v, want %v", got, want)
	}
}

// TestTreeBoundCovers checks the committed trees' bound: with lo and hi
// the same features it is the score, and it is at least the score of
// any features drawn between them.
func TestTreeBoundCovers(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 300 {
		var lo, hi, x selectFeatures
		kind := rng.Intn(numKinds)
		for i := range lo {
			a, b := rng.Float64()*3-0.5, rng.Float64()*3-0.5
			if i >= sTypeProbs || rng.Intn(3) == 0 {
				b = a // known features
			}
			lo[i], hi[i] = math.Min(a, b), math.Max(a, b)
		}
		if s := treeScore(&lo, kind); treeBound(kind, &lo, &lo) != s {
			t.Fatalf("bound of a point %v, its score %v", treeBound(kind, &lo, &lo), s)
		}
		b := treeBound(kind, &lo, &hi)
		for range 20 {
			for i := range x {
				x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
			}
			if s := treeScore(&x, kind); s > b {
				t.Fatalf("score %v over the bound %v", s, b)
			}
		}
	}
}
