package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// A non-linear selector (i20-selgbt): gradient-boosted regression trees
// over the linear selector's features and the candidate's kind (one
// indicator per kind), fitted with squared loss to the same label as the
// linear fit (the candidate's gain over the current choice mapped to
// [0, 1]) on the same pages (fitPages), each page weighted as there
// (pageWeight). A tree can read "p(listing) is high and the article
// holds a small share of the item region" where a linear model adds the
// two up.
//
// The fit is exact: every feature's rows sorted once (by value, then by
// row), every node's best split the first best over the features in
// order and their distinct values in order, a leaf's value the weighted
// mean of its rows' residuals times the learning rate. Nothing is drawn
// at random and no map is iterated, so a refit on the same candidates
// writes the same trees.

// treeNode is a node of a fitted tree: a split (row goes left when its
// feature feat is under thr) or, with feat -1, a leaf of value val (the
// learning rate already applied).
type treeNode struct {
	feat        int
	thr, val    float64
	left, right int
}

// gbdt is a boosted ensemble: base plus the sum of its trees' leaves.
type gbdt struct {
	base  float64
	trees [][]treeNode
}

// gbdtParams are the knobs of a fit.
type gbdtParams struct {
	depth, trees, minLeaf int
	rate                  float64
}

// numTreeFeatures is the trees' input: the selector's features, then an
// indicator per candidate kind.
var numTreeFeatures = len(content.SelectFeatureNames) + len(content.CandidateKinds)

// treeFeatures is c's input to the trees.
func treeFeatures(c cand) []float64 {
	x := make([]float64, numTreeFeatures)
	copy(x, c.f)
	x[len(content.SelectFeatureNames)+c.kind] = 1
	return x
}

// predict is m's score of x with its first n trees (all when n < 0).
func (m *gbdt) predict(x []float64, n int) float64 {
	if n < 0 || n > len(m.trees) {
		n = len(m.trees)
	}
	s := m.base
	for _, t := range m.trees[:n] {
		i := 0
		for t[i].feat >= 0 {
			if x[t[i].feat] < t[i].thr {
				i = t[i].left
			} else {
				i = t[i].right
			}
		}
		s += t[i].val
	}
	return s
}

// fitGBDT fits p.trees trees of depth p.depth to ys (weights ws) over
// the rows xs with squared loss.
func fitGBDT(xs [][]float64, ys, ws []float64, p gbdtParams) *gbdt {
	n := len(xs)
	m := &gbdt{}
	if n == 0 {
		return m
	}
	d := len(xs[0])
	var sw, sy float64
	for i := range xs {
		sw += ws[i]
		sy += ws[i] * ys[i]
	}
	m.base = sy / sw
	order := make([][]int, d)
	for j := range order {
		o := make([]int, n)
		for i := range o {
			o[i] = i
		}
		sort.SliceStable(o, func(a, b int) bool { return xs[o[a]][j] < xs[o[b]][j] })
		order[j] = o
	}
	pred := make([]float64, n)
	for i := range pred {
		pred[i] = m.base
	}
	r := make([]float64, n)
	nodeOf := make([]int, n)
	for t := 0; t < p.trees; t++ {
		for i := range r {
			r[i] = ys[i] - pred[i]
			nodeOf[i] = 0
		}
		tree := []treeNode{{feat: -1}}
		frontier := []int{0}
		for level := 0; level < p.depth && len(frontier) > 0; level++ {
			// Per node of the frontier (by its index in tree): totals,
			// then the running left sums of one feature's scan.
			nn := len(tree)
			W, S, N := make([]float64, nn), make([]float64, nn), make([]int, nn)
			active := make([]bool, nn)
			for _, k := range frontier {
				active[k] = true
			}
			for i := 0; i < n; i++ {
				k := nodeOf[i]
				W[k] += ws[i]
				S[k] += ws[i] * r[i]
				N[k]++
			}
			bestGain := make([]float64, nn)
			bestFeat := make([]int, nn)
			bestThr := make([]float64, nn)
			for k := range bestFeat {
				bestFeat[k] = -1
			}
			lw, ls, last := make([]float64, nn), make([]float64, nn), make([]float64, nn)
			ln := make([]int, nn)
			for j := 0; j < d; j++ {
				clear(lw)
				clear(ls)
				clear(ln)
				for _, i := range order[j] {
					k := nodeOf[i]
					if !active[k] {
						continue
					}
					v := xs[i][j]
					if ln[k] >= p.minLeaf && N[k]-ln[k] >= p.minLeaf && v > last[k] {
						rw, rs := W[k]-lw[k], S[k]-ls[k]
						if lw[k] > 0 && rw > 0 {
							g := ls[k]*ls[k]/lw[k] + rs*rs/rw - S[k]*S[k]/W[k]
							if g > bestGain[k]+1e-12 {
								thr := last[k] + (v-last[k])/2
								if !(thr > last[k]) || thr > v {
									thr = v
								}
								bestGain[k], bestFeat[k], bestThr[k] = g, j, thr
							}
						}
					}
					lw[k] += ws[i]
					ls[k] += ws[i] * r[i]
					ln[k]++
					last[k] = v
				}
			}
			var next []int
			for _, k := range frontier {
				if bestFeat[k] < 0 {
					continue
				}
				l, rr := len(tree), len(tree)+1
				tree = append(tree, treeNode{feat: -1}, treeNode{feat: -1})
				tree[k].feat, tree[k].thr, tree[k].left, tree[k].right = bestFeat[k], bestThr[k], l, rr
				next = append(next, l, rr)
			}
			for i := 0; i < n; i++ {
				k := nodeOf[i]
				if !active[k] || tree[k].feat < 0 {
					continue
				}
				if xs[i][tree[k].feat] < tree[k].thr {
					nodeOf[i] = tree[k].left
				} else {
					nodeOf[i] = tree[k].right
				}
			}
			frontier = next
		}
		// Leaves: the weighted mean residual, shrunk by the rate.
		W, S := make([]float64, len(tree)), make([]float64, len(tree))
		for i := 0; i < n; i++ {
			W[nodeOf[i]] += ws[i]
			S[nodeOf[i]] += ws[i] * r[i]
		}
		for k := range tree {
			if tree[k].feat < 0 && W[k] > 0 {
				tree[k].val = p.rate * (S[k] / W[k])
			}
		}
		for i := 0; i < n; i++ {
			pred[i] += tree[nodeOf[i]].val
		}
		m.trees = append(m.trees, tree)
	}
	return m
}

// treeResidual (-treeresid): the trees are fitted to what the linear
// model (the committed one; on the folds, the fold's fit) leaves of the
// label, and the score is the linear model's plus the trees'.
var treeResidual bool

// linShare is the linear model's share of the score beside the trees'
// alpha.
func linShare(alpha float64) float64 {
	if treeResidual {
		return 1
	}
	return 1 - alpha
}

// fitTrees fits the trees on the candidates of cps (with treeResidual,
// to the label less lin's score).
func fitTrees(cps []*candPage, p gbdtParams, lin selModel) *gbdt {
	var xs [][]float64
	var ys, ws []float64
	for _, cp := range cps {
		for _, c := range cp.cands {
			xs = append(xs, treeFeatures(c))
			y := label(cp, c, true)
			if treeResidual {
				y -= lin.score(c)
			}
			ys = append(ys, y)
			ws = append(ws, pageWeight(cp))
		}
	}
	return fitGBDT(xs, ys, ws, p)
}

// blendScore is the selector's score of c: alpha times the trees'
// (their first n) plus 1 - alpha times the linear model lin's.
func blendScore(m *gbdt, n int, lin selModel, alpha float64, c cand) float64 {
	t := m.predict(treeFeatures(c), n)
	if b := linShare(alpha); b != 0 {
		return alpha*t + b*lin.score(c)
	}
	return t // (alpha is 1)
}

// chooseTrees is the index of the candidate the blend of m (its first n
// trees) and lin takes on cp with margin, or -1 for the current choice:
// chooseIdx's rule.
func (m *gbdt) chooseTrees(cp *candPage, n int, lin selModel, alpha, margin float64) int {
	best, bs, cs := -1, math.Inf(-1), math.Inf(-1)
	for i, c := range cp.cands {
		s := blendScore(m, n, lin, alpha, c)
		if c.current {
			cs = s
		}
		if s > bs {
			best, bs = i, s
		}
	}
	if best < 0 || cp.cands[best].current || bs < cs+margin {
		return -1
	}
	return best
}

// The knobs the trees' cross-validation tries (the gate 1.01: none).
var (
	treeGates    = []float64{0.25, 0.4, 0.55}
	treeDepths   = []int{2, 3}
	treeRates    = []float64{0.1}
	treeMinLeafs = []int{10, 30}
	treeCounts   = []int{50, 100, 200, 400, 800}
	treeMargins  = []float64{0, 0.01, 0.02, 0.03, 0.045, 0.06, 0.08, 0.1}
	// treeAlphas are the trees' shares of the score (1: trees alone;
	// the rest: the committed linear model's, fitted as it was).
	treeAlphas = []float64{0.25, 0.5, 0.75, 1}
)

// treeSetting is one setting of the trees' fit with its figures on the
// folds.
type treeSetting struct {
	setting
	p     gbdtParams
	alpha float64
}

// treeFixed, when set (-treesetting gate,depth,rate,minleaf,trees,margin),
// is the setting trainTrees writes whatever the cross-validation prefers.
var treeFixed string

// cvFolds runs the two-fold cross-validation inside A of a selector
// under gate: fit(tr) returns a chooser of a page's candidate index;
// returns per margin index the gains per group, the largest readability
// or eval page loss and the sum of squared page changes.
func cvFolds(cps []*candPage, gate float64, nChoosers int, fit func(tr []*candPage, fold bool) func(cp *candPage, i int) int) ([]map[string]float64, []float64, []float64) {
	gains := make([]map[string]float64, nChoosers)
	for i := range gains {
		gains[i] = make(map[string]float64)
	}
	pageLoss := make([]float64, nChoosers)
	sq := make([]float64, nChoosers)
	a := fitPages(cps, gate, 0)
	for _, fold := range []bool{true, false} {
		var tr, va []*candPage
		for _, cp := range a {
			if (hash(cp.name)>>selectFoldBit&1 == 0) == fold {
				tr = append(tr, cp)
			} else if !cp.locked {
				va = append(va, cp)
			}
		}
		choose := fit(tr, fold)
		for i := 0; i < nChoosers; i++ {
			for _, cp := range va {
				f1 := cp.cur
				if j := choose(cp, i); j >= 0 {
					f1 = cp.cands[j].f1
				}
				d := f1 - cp.cur
				gains[i][cp.group] += d
				sq[i] += d * d
				if cp.group == corpus.Readability || cp.group == corpus.Eval {
					pageLoss[i] = max(pageLoss[i], -d)
				}
			}
		}
	}
	return gains, pageLoss, sq
}

// summarize turns cvFolds's figures into a setting.
func summarize(st setting, gains map[string]float64, pageLoss, sq float64, nA map[string]int, total int) setting {
	st.worst, st.pageLoss = math.Inf(1), pageLoss
	for _, g := range groups() {
		st.gain += gains[g]
		if d := gains[g] / float64(max(nA[g], 1)); d < st.worst {
			st.worst, st.worstGroup = d, g
		}
	}
	st.gain /= float64(total)
	st.se = math.Sqrt(max(0, sq/float64(total)-st.gain*st.gain) / float64(total))
	return st
}

// trainTrees chooses the trees' gate, depth, learning rate, least leaf,
// number of trees and margin by the two-fold cross-validation inside A
// that trainSelect runs (the best mean gain among the settings under
// which no group goes down on the held-out fold and no readability or
// eval page loses more than selectPageLoss), prints it beside the
// linear selector's (the committed setting, fitted as -bags asks), fits
// the chosen setting on A and writes it as Go source to path.
func trainTrees(cps []*candPage, path string) error {
	if treeResidual {
		// Corrections of the linear model: fewer trees, no blend.
		treeAlphas = []float64{1}
		treeRates = []float64{0.05, 0.1}
		treeCounts = []int{10, 25, 50, 100, 200}
	}
	nA := make(map[string]int)
	total := 0
	for _, cp := range cps {
		if cp.halfA {
			nA[cp.group]++
			total++
		}
	}
	perGroup := func(gains map[string]float64) string {
		var b bytes.Buffer
		for _, g := range groups() {
			fmt.Fprintf(&b, " %s %+.4f", g, gains[g]/float64(max(nA[g], 1)))
		}
		return b.String()
	}
	// The linear selector's cross-validation at the committed setting.
	// Its fold models are the linear part of the blends on the folds.
	lg, ll := content.SelectArticleProb, 0.1
	linFold := map[bool]selModel{}
	lgains, lloss, lsq := cvFolds(cps, lg, 1, func(tr []*candPage, fold bool) func(*candPage, int) int {
		m := fitBagged(tr, ll, false, true)
		linFold[fold] = m
		return func(cp *candPage, _ int) int { return m.chooseIdx(cp, 0.045) }
	})
	lin := summarize(setting{gate: lg, lambda: ll, margin: 0.045}, lgains[0], lloss[0], lsq[0], nA, total)
	fmt.Fprintf(os.Stderr, "linear (gate %g, lambda %g, margin 0.045, %d bags): cross-validated mean gain on A %+.4f (s.e. %.4f), worst group %s %+.4f, worst readability or eval page %+.4f\n  per group:%s\n",
		lg, ll, selectBags, lin.gain, lin.se, lin.worstGroup, lin.worst, -lin.pageLoss, perGroup(lgains[0]))

	var res []treeSetting
	byKey := map[string]map[string]float64{}
	for _, gate := range treeGates {
		for _, depth := range treeDepths {
			for _, rate := range treeRates {
				for _, minLeaf := range treeMinLeafs {
					maxTrees := treeCounts[len(treeCounts)-1]
					nm, na := len(treeMargins), len(treeAlphas)
					nc := len(treeCounts) * nm * na
					gains, loss, sq := cvFolds(cps, gate, nc, func(tr []*candPage, fold bool) func(*candPage, int) int {
						m := fitTrees(tr, gbdtParams{depth: depth, trees: maxTrees, minLeaf: minLeaf, rate: rate}, linFold[fold])
						return func(cp *candPage, i int) int {
							return m.chooseTrees(cp, treeCounts[i/(nm*na)], linFold[fold], treeAlphas[i/nm%na], treeMargins[i%nm])
						}
					})
					for i := 0; i < nc; i++ {
						p := gbdtParams{depth: depth, trees: treeCounts[i/(nm*na)], minLeaf: minLeaf, rate: rate}
						st := summarize(setting{gate: gate, margin: treeMargins[i%nm]}, gains[i], loss[i], sq[i], nA, total)
						ts := treeSetting{st, p, treeAlphas[i/nm%na]}
						res = append(res, ts)
						byKey[ts.key()] = gains[i]
						fmt.Fprintf(os.Stderr, "trees %s: cross-validated mean gain on A %+.4f (s.e. %.4f), worst group %s %+.4f, worst readability or eval page %+.4f\n",
							ts.key(), st.gain, st.se, st.worstGroup, st.worst, -st.pageLoss)
					}
				}
			}
		}
	}
	sort.SliceStable(res, func(i, j int) bool {
		oi, oj := res[i].allowed(), res[j].allowed()
		if oi != oj {
			return oi
		}
		if !oi {
			return res[i].worst > res[j].worst
		}
		return res[i].gain > res[j].gain
	})
	fmt.Fprintf(os.Stderr, "\nthe ten best allowed tree settings:\n")
	for _, st := range res[:min(10, len(res))] {
		fmt.Fprintf(os.Stderr, "  %s: gain %+.4f (s.e. %.4f), worst %s %+.4f, page %+.4f, allowed %v\n", st.key(), st.gain, st.se, st.worstGroup, st.worst, -st.pageLoss, st.allowed())
	}
	best := res[0]
	how := "chosen by cross-validation on A"
	if treeFixed != "" {
		var g, rt, mg, al float64
		var dp, ml, nt int
		if _, err := fmt.Sscanf(treeFixed, "%g,%d,%g,%d,%d,%g,%g", &g, &dp, &rt, &ml, &nt, &mg, &al); err != nil {
			return fmt.Errorf("-treesetting %q: want gate,depth,rate,minleaf,trees,margin,alpha: %v", treeFixed, err)
		}
		found := false
		for _, st := range res {
			if st.gate == g && st.p.depth == dp && st.p.rate == rt && st.p.minLeaf == ml && st.p.trees == nt && st.margin == mg && st.alpha == al {
				best, found = st, true
				break
			}
		}
		if !found {
			return fmt.Errorf("-treesetting %q: not among the settings tried", treeFixed)
		}
		how = "fixed (-treesetting); cross-validated on A"
	}
	fmt.Fprintf(os.Stderr, "\nchosen trees: %s, gain %+.4f (s.e. %.4f), worst %s %+.4f\n  per group:%s\n", best.key(), best.gain, best.se, best.worstGroup, best.worst, perGroup(byKey[best.key()]))
	fmt.Fprintf(os.Stderr, "linear:        gain %+.4f (s.e. %.4f), worst %s %+.4f\n", lin.gain, lin.se, lin.worstGroup, lin.worst)

	// The linear part: the committed model's weights.
	linW, err := readPrior(filepath.Join(filepath.Dir(path), "select_model.go"))
	if err != nil {
		return err
	}
	a := fitPages(cps, best.gate, 0)
	m := fitTrees(a, best.p, linW)
	reportTreeChoices(cps, m, linW, best)
	src := treeSource(m, len(a), total, best, how)
	return write(path, src)
}

func (st treeSetting) key() string {
	return fmt.Sprintf("gate %g depth %d rate %g minleaf %d trees %d margin %g alpha %g", st.gate, st.p.depth, st.p.rate, st.p.minLeaf, st.p.trees, st.margin, st.alpha)
}

// reportTreeChoices prints half A's mean F1 per group before the
// selector, with the compiled selector and with the trees m.
func reportTreeChoices(cps []*candPage, m *gbdt, lin selModel, st treeSetting) {
	n, cur, old, nw := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, cp := range cps {
		if !cp.halfA {
			continue
		}
		f1 := cp.cur
		if len(cp.cands) > 0 && cp.gatedAt(st.gate) {
			if i := m.chooseTrees(cp, -1, lin, st.alpha, st.margin); i >= 0 {
				f1 = cp.cands[i].f1
			}
		}
		for _, g := range []string{"all", cp.group} {
			n[g]++
			cur[g] += cp.cur
			old[g] += cp.chosen
			nw[g] += f1
		}
	}
	fmt.Fprintf(os.Stderr, "half A, mean per-page F1 (the trainer's measure): group, pages, before the selector, compiled selector, these trees\n")
	for _, g := range append([]string{"all"}, groups()...) {
		if n[g] > 0 {
			fmt.Fprintf(os.Stderr, "  %-14s %4.0f  %.4f  %.4f  %.4f  (%+.4f)\n", g, n[g], cur[g]/n[g], old[g]/n[g], nw[g]/n[g], (nw[g]-old[g])/n[g])
		}
	}
}

// exact formats v so that it reads back as the same float64.
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// treeSource is select_trees.go for m.
func treeSource(m *gbdt, pages, total int, st treeSetting, how string) []byte {
	var buf bytes.Buffer
	cmd := "-train trees"
	if selectBags > 1 {
		cmd += fmt.Sprintf(" -bags %d", selectBags)
	}
	if treeResidual {
		cmd += " -treeresid"
	}
	if treeFixed != "" {
		cmd += " -treesetting " + treeFixed
	}
	fmt.Fprintf(&buf, "// Code generated by go run ./bench/pagetype -corpus DIR %s; DO NOT EDIT.\n\n", cmd)
	fmt.Fprintf(&buf, "package content\n\n")
	form := ""
	if treeResidual {
		form = " (fitted to what the linear model leaves, -treeresid)"
	}
	fmt.Fprintf(&buf, "// The tree selector (selectTreesOn)%s: %d boosted regression trees of\n// depth %d (learning rate %g, at least %d candidates a leaf) of a\n// candidate's gain over the current choice, fitted with squared loss on\n// the %d pages of half A of the three corpora under the gate; gate %g,\n// the trees' knobs and margin %g %s (mean gain %+.4f over A's %d pages, standard error %.4f;\n// worst group %s %+.4f).\n\n",
		form, st.p.trees, st.p.depth, st.p.rate, st.p.minLeaf, pages, st.gate, st.margin, how, st.gain, total, st.se, st.worstGroup, st.worst)
	fmt.Fprintf(&buf, "// selectTreeGate is SelectArticleProb for the trees.\nconst selectTreeGate = %s\n\n", exact(st.gate))
	fmt.Fprintf(&buf, "// selectTreeMargin is selectMargin for the trees.\nconst selectTreeMargin = %s\n\n", exact(st.margin))
	fmt.Fprintf(&buf, "// selectTreeAlpha is the trees' weight in the score, selectTreeLinear\n// the linear model's (selectWeights).\nconst (\n\tselectTreeAlpha  = %s\n\tselectTreeLinear = %s\n)\n\n", exact(st.alpha), exact(linShare(st.alpha)))
	fmt.Fprintf(&buf, "// selectTreeBase is the trees' score before the first tree.\nconst selectTreeBase = %s\n\n", exact(m.base))
	fmt.Fprintf(&buf, "// selectTreeRoots are the index in selectTreeNodes of each tree's root.\nvar selectTreeRoots = [...]uint16{")
	at := 0
	for i, t := range m.trees {
		if i > 0 {
			buf.WriteString(", ")
		}
		fmt.Fprintf(&buf, "%d", at)
		at += len(t)
	}
	fmt.Fprintf(&buf, "}\n\n")
	fmt.Fprintf(&buf, "// selectTreeNodes are the trees' nodes: a split on feature feat (over\n// SelectFeatureNames, then one indicator per kind) sends a candidate\n// whose feature is under thr to left, else to right (indexes in the\n// tree's own nodes); a leaf (feat leaf) adds thr.\nvar selectTreeNodes = [...]treeNode{\n")
	for i, t := range m.trees {
		fmt.Fprintf(&buf, "\t// tree %d\n", i)
		for _, nd := range t {
			if nd.feat < 0 {
				fmt.Fprintf(&buf, "\t{leaf, %s, 0, 0},\n", exact(nd.val))
			} else {
				fmt.Fprintf(&buf, "\t{%d, %s, %d, %d},\n", nd.feat, exact(nd.thr), nd.left, nd.right)
			}
		}
	}
	fmt.Fprintf(&buf, "}\n")
	return buf.Bytes()
}
