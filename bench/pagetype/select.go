package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"sort"

	"webacq/internal/content"
)

// The candidate selector (internal/content/select.go): every candidate
// main content of every page, scored against the page's ground truth.

type cand struct {
	kind    int
	f       []float64
	f1      float64
	current bool
	chosen  bool
}

type candPage struct {
	p      *page
	probs  []float64
	cands  []cand
	cur    float64 // F1 of the pipeline's choice before the selector
	chosen float64 // F1 of its final choice
}

// selectArticleProb mirrors internal/content's gate: pages with a
// higher article probability keep the pipeline's choice.
const selectArticleProb = 0.7

func kindIndex(k string) int {
	for i, n := range content.CandidateKinds {
		if n == k {
			return i
		}
	}
	return -1
}

func candidatePages(pages []*page) []*candPage {
	var out []*candPage
	for _, p := range pages {
		cs, probs, err := content.Candidates(p.html, p.url)
		if err != nil {
			continue
		}
		cp := &candPage{p: p, probs: probs}
		truth := tokens(p.truth)
		for _, c := range cs {
			x := cand{kind: kindIndex(c.Kind), f: c.Features, f1: f1(tokens(c.Text), truth), current: c.Current, chosen: c.Chosen}
			if x.current {
				cp.cur = x.f1
			}
			if x.chosen {
				cp.chosen = x.f1
			}
			cp.cands = append(cp.cands, x)
		}
		if len(cs) == 0 {
			cp.cur, cp.chosen = p.f1, p.f1
		}
		out = append(out, cp)
	}
	return out
}

func (cp *candPage) gated() bool { return cp.probs[0] < selectArticleProb }

// kindF1 is the F1 of the page's candidate of kind k, or of the current
// choice when the page has none of that kind.
func (cp *candPage) kindF1(k int) float64 {
	for _, c := range cp.cands {
		if c.kind == k {
			return c.f1
		}
	}
	return cp.cur
}

func (cp *candPage) oracle() float64 {
	best := cp.cur
	for _, c := range cp.cands {
		best = max(best, c.f1)
	}
	return best
}

// headroom prints, per labelled type of half A, the F1 of the current
// choice, of the selector's, of each kind alone, and of the best
// candidate per page; on all pages and on the pages the selector sees.
func headroom(cps []*candPage) {
	for _, gatedOnly := range []bool{false, true} {
		title := "all half-A pages"
		if gatedOnly {
			title = fmt.Sprintf("half-A pages with p(article) < %g (the selector's)", selectArticleProb)
		}
		fmt.Printf("\nheadroom, %s (mean word F1):\n\n| type | pages | current | selector |", title)
		for _, k := range content.CandidateKinds {
			fmt.Printf(" %s |", k)
		}
		fmt.Printf(" oracle |\n|---|---|---|---|")
		for range content.CandidateKinds {
			fmt.Printf("---|")
		}
		fmt.Printf("---|\n")
		for _, t := range append([]string{"all"}, typeNames()...) {
			var n, cur, sel, orc float64
			kinds := make([]float64, len(content.CandidateKinds))
			for _, cp := range cps {
				if !cp.p.halfA || gatedOnly && !cp.gated() || t != "all" && string(content.PageTypes[cp.p.label]) != t {
					continue
				}
				n++
				cur += cp.cur
				sel += cp.chosen
				orc += cp.oracle()
				for k := range kinds {
					kinds[k] += cp.kindF1(k)
				}
			}
			if n == 0 {
				continue
			}
			fmt.Printf("| %s | %.0f | %.4f | %.4f |", t, n, cur/n, sel/n)
			for k := range kinds {
				fmt.Printf(" %.4f |", kinds[k]/n)
			}
			fmt.Printf(" %.4f |\n", orc/n)
		}
	}
	fmt.Printf("\nselector on each half, F1 before / after (all labelled types):\n\n| half | type | pages | current | selector |\n|---|---|---|---|---|\n")
	for _, half := range []bool{true, false} {
		for _, t := range append([]string{"all"}, typeNames()...) {
			var n, cur, sel float64
			for _, cp := range cps {
				if cp.p.halfA != half || t != "all" && string(content.PageTypes[cp.p.label]) != t {
					continue
				}
				n++
				cur += cp.cur
				sel += cp.chosen
			}
			h := "B"
			if half {
				h = "A"
			}
			fmt.Printf("| %s | %s | %.0f | %.4f | %.4f |\n", h, t, n, cur/n, sel/n)
		}
	}
}

// selModel is a logistic model of a candidate's F1 per kind.
type selModel [][]float64

func (m selModel) score(c cand) float64 {
	z := 0.0
	for i, v := range c.f {
		z += m[c.kind][i] * v
	}
	return 1 / (1 + math.Exp(-z))
}

// choose returns the F1 of the candidate m picks on cp with margin.
func (m selModel) choose(cp *candPage, margin float64) float64 {
	if !cp.gated() || len(cp.cands) == 0 {
		return cp.cur
	}
	best, bs, cs := -1, math.Inf(-1), math.Inf(-1)
	for i, c := range cp.cands {
		s := m.score(c)
		if c.current {
			cs = s
		}
		if s > bs {
			best, bs = i, s
		}
	}
	if best < 0 || cp.cands[best].current || bs < cs+margin {
		return cp.cur
	}
	return cp.cands[best].f1
}

// fitSelect fits one logistic model of F1 per kind (soft label,
// cross-entropy, L2 penalty lambda) on the candidates of cps, features
// standardized while fitting and folded back into raw-feature weights.
func fitSelect(cps []*candPage, lambda float64) selModel {
	nk := len(content.CandidateKinds)
	m := make(selModel, nk)
	for k := 0; k < nk; k++ {
		var xs [][]float64
		var ys []float64
		for _, cp := range cps {
			for _, c := range cp.cands {
				if c.kind == k {
					xs = append(xs, c.f)
					ys = append(ys, c.f1)
				}
			}
		}
		d := len(content.SelectFeatureNames)
		m[k] = make([]float64, d)
		if len(xs) < 5 {
			m[k][0] = -5 // too few to judge: never preferred
			continue
		}
		mean, scale := standardize(xs)
		mean[0], scale[0] = 0, 1 // the bias stays 1
		z := zs(xs, mean, scale)
		w := make([]float64, d)
		g := make([]float64, d)
		n := float64(len(z))
		for it := 0; it < iterations; it++ {
			clear(g)
			for j, x := range z {
				s := 0.0
				for i, v := range x {
					s += w[i] * v
				}
				e := (1/(1+math.Exp(-s)) - ys[j]) / n
				for i, v := range x {
					g[i] += e * v
				}
			}
			for i := range w {
				pen := lambda * w[i]
				if i == 0 {
					pen = 0
				}
				w[i] -= rate * (g[i] + pen)
			}
		}
		// w·(x-mean)/scale = Σ (w_i/scale_i) x_i - Σ w_i mean_i/scale_i.
		for i := range w {
			m[k][i] = w[i] / scale[i]
			if i > 0 {
				m[k][0] -= w[i] * mean[i] / scale[i]
			}
		}
		m[k][0] += w[0]
	}
	return m
}

var selectMargins = []float64{0, 0.02, 0.05, 0.1, 0.15, 0.2}

// trainSelect fits the selector on half A's pages that the gate passes;
// the L2 penalty and the margin are chosen by two-fold cross-validation
// inside A (folds by the hash's second bit), by the mean F1 gain.
func trainSelect(cps []*candPage, path string) error {
	var a []*candPage
	for _, cp := range cps {
		if cp.p.halfA && cp.gated() {
			a = append(a, cp)
		}
	}
	type setting struct{ lambda, margin, gain float64 }
	var res []setting
	for _, lambda := range []float64{0.001, 0.01, 0.1, 1} {
		gains := make([]float64, len(selectMargins))
		for _, fold := range []bool{true, false} {
			var tr, va []*candPage
			for _, cp := range a {
				if (hash(cp.p.name)&2 == 0) == fold {
					tr = append(tr, cp)
				} else {
					va = append(va, cp)
				}
			}
			m := fitSelect(tr, lambda)
			for i, mg := range selectMargins {
				for _, cp := range va {
					gains[i] += m.choose(cp, mg) - cp.cur
				}
			}
		}
		for i, mg := range selectMargins {
			res = append(res, setting{lambda, mg, gains[i] / float64(len(a))})
			fmt.Fprintf(os.Stderr, "lambda %g margin %g: cross-validated mean F1 gain on A's %d gated pages %+.4f\n", lambda, mg, len(a), gains[i]/float64(len(a)))
		}
	}
	sort.SliceStable(res, func(i, j int) bool { return res[i].gain > res[j].gain })
	best := res[0]
	m := fitSelect(a, best.lambda)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by go run ./bench/pagetype -train select; DO NOT EDIT.\n\n")
	fmt.Fprintf(&buf, "package content\n\n")
	fmt.Fprintf(&buf, "// The selector's weights, fitted on the %d pages of half A of wcxb-dev with\n", len(a))
	fmt.Fprintf(&buf, "// p(article) < selectArticleProb; L2 penalty %g and margin %g chosen by\n", best.lambda, best.margin)
	fmt.Fprintf(&buf, "// cross-validation on A (mean F1 gain %+.4f on those pages).\n\n", best.gain)
	fmt.Fprintf(&buf, "// selectMargin is how much higher a candidate's predicted F1 must be\n// than the current choice's to replace it.\n")
	fmt.Fprintf(&buf, "const selectMargin = %g\n\n", best.margin)
	fmt.Fprintf(&buf, "// selectWeights are the selector's weights per candidate kind, over\n// SelectFeatureNames.\n")
	fmt.Fprintf(&buf, "var selectWeights = [numKinds][numSelectFeatures]float64{\n")
	for k := range m {
		fmt.Fprintf(&buf, "\t{%s}, // %s\n", floats(m[k]), content.CandidateKinds[k])
	}
	fmt.Fprintf(&buf, "}\n")
	return write(path, buf.Bytes())
}
