package content

import "math"

// The tree selector's evaluation (selectTreesOn; the trees themselves
// are in select_trees.go, written by bench/pagetype -train trees).

// treeNode is a node of the selector's trees: a split sends a candidate
// whose input feat (treeInput) is under thr to the tree's node left,
// else to right; a leaf (feat leaf) adds thr to the score.
type treeNode struct {
	feat        uint8
	thr         float64
	left, right uint8
}

// leaf marks a leaf among treeNodes.
const leaf = 255

// treeInput is the trees' input j of a candidate of kind with features
// f: the selector's features, then an indicator per candidate kind.
func treeInput(f *selectFeatures, kind, j int) float64 {
	if j < numSelectFeatures {
		return f[j]
	}
	if j-numSelectFeatures == kind {
		return 1
	}
	return 0
}

// treeScore is the trees' score of a candidate of kind with features f:
// selectTreeBase plus a leaf of every tree, added in the trees' order
// (the trainer's sum, to the bit).
func treeScore(f *selectFeatures, kind int) float64 {
	return treesScore(selectTreeNodes[:], selectTreeRoots[:], selectTreeBase, f, kind)
}

// treesScore is treeScore of the trees nodes (roots: each tree's first
// node) and base.
func treesScore(nodes []treeNode, roots []uint16, base float64, f *selectFeatures, kind int) float64 {
	s := base
	for _, r := range roots {
		t := nodes[r:]
		i := 0
		for t[i].feat != leaf {
			if treeInput(f, kind, int(t[i].feat)) < t[i].thr {
				i = int(t[i].left)
			} else {
				i = int(t[i].right)
			}
		}
		s += t[i].thr
	}
	return s
}

// treeBound is the largest score the trees give a candidate of kind
// whose features lie between lo and hi (feature by feature): in each
// tree the largest leaf a split on an input in that range can reach.
// Rounding to nearest is monotone, so the sum in the trees' order is
// at least treeScore of any features in the range.
func treeBound(kind int, lo, hi *selectFeatures) float64 {
	return treesBound(selectTreeNodes[:], selectTreeRoots[:], selectTreeBase, kind, lo, hi)
}

// treesBound is treeBound of the trees nodes, roots and base.
func treesBound(nodes []treeNode, roots []uint16, base float64, kind int, lo, hi *selectFeatures) float64 {
	s := base
	for _, r := range roots {
		s += nodeBound(nodes[r:], 0, kind, lo, hi)
	}
	return s
}

func nodeBound(t []treeNode, i, kind int, lo, hi *selectFeatures) float64 {
	n := &t[i]
	if n.feat == leaf {
		return n.thr
	}
	j := int(n.feat)
	a, b := treeInput(lo, kind, j), treeInput(hi, kind, j)
	switch {
	case b < n.thr:
		return nodeBound(t, int(n.left), kind, lo, hi)
	case a >= n.thr:
		return nodeBound(t, int(n.right), kind, lo, hi)
	}
	return math.Max(nodeBound(t, int(n.left), kind, lo, hi), nodeBound(t, int(n.right), kind, lo, hi))
}

// viewTreeMayWin is viewMayWin for the trees: each feature of the view
// between the ends viewMayWin takes, the compared ones anywhere in
// [0, 1] (the share of added words up to any value: a vertical tab).
func viewTreeMayWin(c *candidate, b *viewBound, lines int, artWords, bodyWords int, hasH1, readableOK bool, prose int, probs [len(PageTypes)]float64, curScore float64) bool {
	if b.broken {
		return true
	}
	words := float64(b.maxWords())
	var lo, hi selectFeatures
	set := func(i int, l, h float64) { lo[i], hi[i] = l, h }
	set(sBias, 1, 1)
	set(sWords, 0, math.Log1p(words))
	set(sBodyShare, 0, math.Min(1, words/float64(max(bodyWords, 1))))
	set(sLinkDensity, 0, 1)
	set(sArticleRatio, math.Log(1/float64(artWords+1)), math.Log((words+1)/float64(artWords+1)))
	set(sHeadings, 0, math.Log1p(float64(b.heads)))
	if hasH1 {
		set(sHasH1, 0, 1)
	}
	set(sPrices, 0, math.Log1p(float64(b.signs)))
	set(sControls, 0, math.Log1p(float64(b.controls)))
	set(sWordsPerLine, 0, math.Log1p(words/float64(lines)))
	if readableOK {
		set(sReadableOK, 1, 1)
	}
	a := math.Log1p(float64(prose))
	set(sArticleProse, a, a)
	for i, p := range probs {
		set(sTypeProbs+i, p, p)
	}
	for _, i := range comparedFeatures {
		set(i, 0, 1)
	}
	hi[sExtraShare] = math.Inf(1)
	t := treeBound(c.kind, &lo, &hi)
	if selectTreeLinear != 0 {
		t = selectTreeAlpha*t + selectTreeLinear*viewLinearBound(c, b, lines, artWords, bodyWords, hasH1, readableOK, prose, probs)
	}
	return t+1e-6 >= curScore+selectTreeMargin-1e-12
}
