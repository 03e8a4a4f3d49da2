package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// The candidate selector (internal/content/select.go): every candidate
// main content of every page, scored against the page's ground truth.

type cand struct {
	kind    int
	score   float64 // the compiled selector's prediction
	f       []float64
	f1      float64
	current bool
	chosen  bool
}

type candPage struct {
	name   string
	group  string // the corpus, or the wcxb-dev page type
	halfA  bool
	probs  []float64
	cands  []cand
	locked bool    // the selector does not judge the page (a profile's copy, a page taken for a forum)
	cur    float64 // F1 of the pipeline's choice before the selector
	chosen float64 // F1 of its final choice
}

// selectArticleProb is the gate of the tables: internal/content's
// (content.SelectArticleProb); trainSelect chooses it.
var selectArticleProb = content.SelectArticleProb

// selectGates are the gates trainSelect tries.
var selectGates = []float64{0.25, 0.4, 0.55, 0.7}

// selectWorst is the least cross-validated change of any group a
// setting may cause: none may go down at all, as the folds' changes are
// noisy estimates of the held-out half's (a bound of -0.001, quality.md's
// rule applied to the folds, chose settings that lowered readability or
// trafilatura-eval on half B).
const selectWorst = 0

// selectPageLoss is the most F1 a setting may cost any one readability
// or trafilatura-eval page on the folds. A group's mean hides one lost page among many
// pages that did not move; the readability pages are articles a reader
// tool gets right, where a switch costs a whole page (v7 lost half B's
// readability 0.009, as if one page of 68 lost 0.6).
const selectPageLoss = 0.05

// selectFixed, when set (-setting gate,prose,lambda,shared,margin),
// is the setting trainSelect fits whatever the cross-validation prefers:
// for experiments.
var selectFixed string

// selectProse are the prose guards trainSelect tries (0: none).
var selectProse = []int{0, 150}

func kindIndex(k string) int {
	for i, n := range content.CandidateKinds {
		if n == k {
			return i
		}
	}
	return -1
}

// candidatePages reads the three corpora and scores every candidate of
// every page with the corpus's own per-page measure: word F1 on
// wcxb-dev, shingle F1 on readability, and on trafilatura-eval the F1
// of the page's snippets (2 TP / (2 TP + FN + FP)).
func candidatePages(wcxbDir string) ([]*candPage, error) {
	var all []*corpus.Page
	r, err := corpus.LoadReadability(filepath.Join(wcxbDir, "..", "readability", "test-pages"))
	if err != nil {
		return nil, err
	}
	e, err := corpus.LoadEval(filepath.Join(wcxbDir, "..", "trafilatura-eval"))
	if err != nil {
		return nil, err
	}
	w, err := corpus.LoadWCXB(wcxbDir)
	if err != nil {
		return nil, err
	}
	all = append(append(append(all, r...), e...), w...)
	var out []*candPage
	for _, p := range all {
		body, err := p.Body()
		if err != nil {
			return nil, err
		}
		cs, probs, err := content.Candidates(body, p.URL)
		if err != nil {
			continue
		}
		group := p.Corpus
		if p.Corpus == corpus.WCXB {
			group = p.Type
		}
		cp := &candPage{name: p.Name, group: group, halfA: p.Half == corpus.HalfA, probs: probs}
		for _, c := range cs {
			// The selector leaves alone a profile's copy (the forum
			// thread, the item region) and pages taken for a forum
			// (p ≥ 0.4, the profile's gate).
			if !c.Selectable && c.Current && c.Kind != "article" || takenForForum(probs) {
				cp.locked = true
			}
			x := cand{kind: kindIndex(c.Kind), score: c.Score, f: c.Features, f1: pageScore(p, c.Text), current: c.Current, chosen: c.Chosen}
			if x.current {
				cp.cur = x.f1
			}
			if x.chosen {
				cp.chosen = x.f1
			}
			cp.cands = append(cp.cands, x)
		}
		if len(cs) == 0 || !hasCurrent(cs) {
			cp.cur = pageScore(p, "")
			cp.chosen = cp.cur
		}
		out = append(out, cp)
	}
	return out, nil
}

// takenForForum tells whether forum is the most likely type, with
// probability 0.4 or more.
func takenForForum(probs []float64) bool {
	k := 0
	for i, p := range probs {
		if p > probs[k] {
			k = i
		}
	}
	return content.PageTypes[k] == content.TypeForum && probs[k] >= 0.4
}

func hasCurrent(cs []content.Candidate) bool {
	for _, c := range cs {
		if c.Current {
			return true
		}
	}
	return false
}

// pageScore is a page's score of text, 0 to 1.
func pageScore(p *corpus.Page, text string) float64 {
	s := p.Score(text, true)
	if p.Corpus != corpus.Eval {
		return s.F1
	}
	if d := 2*s.TP + s.FN + s.FP; d > 0 {
		return float64(2*s.TP) / float64(d)
	}
	return 1
}

// groups are the rows of the tables: the two other corpora, then
// wcxb-dev's page types.
func groups() []string { return append([]string{corpus.Readability, corpus.Eval}, typeNames()...) }

func (cp *candPage) gated() bool { return cp.gatedAt(selectArticleProb) }

func (cp *candPage) gatedAt(g float64) bool { return !cp.locked && cp.probs[0] < g }

// prose tells whether the page's current choice is the readability
// article and reads as prose: proseWords words or more, link density
// under proseLinks (feature indexes 1 and 3: log words, link density).
func (cp *candPage) prose(words int) bool {
	for _, c := range cp.cands {
		if c.current && c.kind == 0 {
			return c.f[1] >= math.Log1p(float64(words)) && c.f[3] < 0.05
		}
	}
	return false
}

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
		for _, t := range append([]string{"all"}, groups()...) {
			var n, cur, sel, orc float64
			kinds := make([]float64, len(content.CandidateKinds))
			for _, cp := range cps {
				if !cp.halfA || gatedOnly && !cp.gated() || t != "all" && cp.group != t {
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
	fmt.Printf("\nswitches by the selector, per kind taken: pages, F1 gained, lost:\n\n| half | kind | pages | gained | lost |\n|---|---|---|---|---|\n")
	for _, half := range selectHalves() {
		for k, name := range content.CandidateKinds {
			var n int
			var gain, loss float64
			for _, cp := range cps {
				if cp.halfA != half {
					continue
				}
				for _, c := range cp.cands {
					if c.chosen && !c.current && c.kind == k {
						n++
						if d := c.f1 - cp.cur; d > 0 {
							gain += d
						} else {
							loss -= d
						}
					}
				}
			}
			h := "B"
			if half {
				h = "A"
			}
			fmt.Printf("| %s | %s | %d | %.2f | %.2f |\n", h, name, n, gain, loss)
		}
	}
	fmt.Printf("\nselector on each half, F1 before / after (all: every page of the three corpora):\n\n| half | type | pages | current | selector |\n|---|---|---|---|---|\n")
	for _, half := range selectHalves() {
		for _, t := range append([]string{"all"}, groups()...) {
			var n, cur, sel float64
			for _, cp := range cps {
				if cp.halfA != half || t != "all" && cp.group != t {
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

// selectShowB makes -select print half B's rows too (-heldout).
var selectShowB bool

// selectHalves is the halves -select reports, half A first: half B only
// with -heldout, so that a rule author looking at the candidates does not
// read the held-out half by accident.
func selectHalves() []bool {
	if selectShowB {
		return []bool{true, false}
	}
	return []bool{true}
}

// label is what a model is fitted to for c on cp: its F1, or with
// relative its gain over the current choice mapped to [0, 1].
func label(cp *candPage, c cand, relative bool) float64 {
	if relative {
		return (c.f1 - cp.cur + 1) / 2
	}
	return c.f1
}

// articleWeight is how much a readability or trafilatura-eval page
// weighs in the fits against a wcxb-dev page: those corpora are
// articles that the classifier doubts, where a wider region costs
// precision, and no corpus may go down.
const articleWeight = 8

func pageWeight(cp *candPage) float64 {
	if cp.group == corpus.Readability || cp.group == corpus.Eval {
		return articleWeight
	}
	return 1
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
	if i := m.chooseIdx(cp, margin); i >= 0 {
		return cp.cands[i].f1
	}
	return cp.cur
}

// fitSelect fits one logistic model of F1 per kind (soft label,
// cross-entropy, L2 penalty lambda) on the candidates of cps, features
// standardized while fitting and folded back into raw-feature weights.
func fitSelect(cps []*candPage, lambda float64, relative bool) selModel {
	nk := len(content.CandidateKinds)
	m := make(selModel, nk)
	for k := 0; k < nk; k++ {
		var xs [][]float64
		var ys, ws []float64
		for _, cp := range cps {
			for _, c := range cp.cands {
				if c.kind == k {
					xs = append(xs, c.f)
					ys = append(ys, label(cp, c, relative))
					ws = append(ws, pageWeight(cp))
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
		// With a prior (-prior), the fit starts from its weights, in
		// the standardized space, and the penalty pulls toward them.
		w0 := make([]float64, d)
		if selectPrior != nil {
			for i := 1; i < d; i++ {
				w0[i] = selectPrior[k][i] * scale[i]
				w0[0] += selectPrior[k][i] * mean[i]
			}
			w0[0] += selectPrior[k][0]
			copy(w, w0)
		}
		n := 0.0
		for _, v := range ws {
			n += v
		}
		for it := 0; it < iterations; it++ {
			clear(g)
			for j, x := range z {
				s := 0.0
				for i, v := range x {
					s += w[i] * v
				}
				e := ws[j] * (1/(1+math.Exp(-s)) - ys[j]) / n
				for i, v := range x {
					g[i] += e * v
				}
			}
			for i := range w {
				pen := lambda * (w[i] - w0[i])
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

// fitShared fits one logistic model of F1 for every kind, a bias per
// kind and the features' weights in common (far fewer weights than
// fitSelect's per kind), returned in fitSelect's form.
func fitShared(cps []*candPage, lambda float64, relative bool) selModel {
	nk := len(content.CandidateKinds)
	var xs [][]float64
	var ys, ws []float64
	var ks []int
	for _, cp := range cps {
		for _, c := range cp.cands {
			xs = append(xs, c.f)
			ys = append(ys, label(cp, c, relative))
			ks = append(ks, c.kind)
			ws = append(ws, pageWeight(cp))
		}
	}
	d := len(content.SelectFeatureNames)
	m := make(selModel, nk)
	for k := range m {
		m[k] = make([]float64, d)
	}
	if len(xs) < 5 {
		return m
	}
	mean, scale := standardize(xs)
	mean[0], scale[0] = 0, 1
	z := zs(xs, mean, scale)
	w := make([]float64, d)
	g := make([]float64, d)
	b := make([]float64, nk)
	gb := make([]float64, nk)
	n := 0.0
	for _, v := range ws {
		n += v
	}
	for it := 0; it < iterations; it++ {
		clear(g)
		clear(gb)
		for j, x := range z {
			s := b[ks[j]]
			for i := 1; i < d; i++ {
				s += w[i] * x[i]
			}
			e := ws[j] * (1/(1+math.Exp(-s)) - ys[j]) / n
			gb[ks[j]] += e
			for i := 1; i < d; i++ {
				g[i] += e * x[i]
			}
		}
		for k := range b {
			b[k] -= rate * gb[k]
		}
		for i := 1; i < d; i++ {
			w[i] -= rate * (g[i] + lambda*w[i])
		}
	}
	for k := range m {
		m[k][0] = b[k]
		for i := 1; i < d; i++ {
			m[k][i] = w[i] / scale[i]
			m[k][0] -= w[i] * mean[i] / scale[i]
		}
	}
	return m
}

var selectMargins = []float64{0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2}

// setting is one setting of the selector's fit with its cross-validated
// figures.
type setting struct {
	gate, lambda, margin float64
	gain                 float64 // the mean change over A's pages
	worst                float64 // the mean change of the group that changed least
	worstGroup           string
	shared, relative     bool
	prose                int
	pageLoss             float64 // the largest loss of a readability or eval page on the folds
	se                   float64 // the standard error of gain (per-page gains over A's pages)
}

// allowed tells whether a setting may be chosen: no group goes down on
// the folds, and no readability or trafilatura-eval page loses more than
// selectPageLoss.
func (st setting) allowed() bool {
	return st.worst >= selectWorst && st.pageLoss <= selectPageLoss
}

// trainSelect fits the selector on half A's pages that the gate passes
// (fitPages); the gate, the L2 penalty, the margin and the prose guard
// are chosen by two-fold cross-validation inside A (folds by the hash's
// second bit): the best mean gain over all of A's pages among the
// allowed settings (no group, corpus or wcxb-dev type, goes down; no
// readability or trafilatura-eval page loses more than selectPageLoss).
func trainSelect(cps []*candPage, path string) error {
	nA := make(map[string]int)
	total := 0
	for _, cp := range cps {
		if cp.halfA {
			nA[cp.group]++
			total++
		}
	}
	var res []setting
	var fg, fl float64
	var fp int
	var fs bool
	if selectFixed != "" {
		var mg float64
		if _, err := fmt.Sscanf(selectFixed, "%g,%d,%g,%t,%g", &fg, &fp, &fl, &fs, &mg); err != nil {
			return fmt.Errorf("-setting %q: want gate,prose,lambda,shared,margin: %v", selectFixed, err)
		}
	}
	margins := selectMargins
	if selectFixed != "" {
		var g, l, mg float64
		var pr int
		var sh bool
		fmt.Sscanf(selectFixed, "%g,%d,%g,%t,%g", &g, &pr, &l, &sh, &mg)
		if !slices.Contains(margins, mg) {
			margins = append(slices.Clone(margins), mg)
		}
	}
	for _, gate := range selectGates {
		for _, prose := range selectProse {
			if selectFixed != "" && selectBags > 1 && (gate != fg || prose != fp) {
				continue // bagged fits are slow: only the fixed setting
			}
			a := fitPages(cps, gate, prose)
			for _, setup := range []struct {
				lambda           float64
				shared, relative bool
			}{{0.001, false, true}, {0.01, false, true}, {0.1, false, true}, {0.001, true, true}, {0.01, true, true}, {1, false, true}, {0.3, false, true}} {
				lambda := setup.lambda
				if selectFixed != "" && selectBags > 1 && (lambda != fl || setup.shared != fs) {
					continue
				}
				if selectFixed == "" && lambda > 0.1 {
					continue // the stronger penalties only when asked for (-setting)
				}
				gains := make([]map[string]float64, len(margins))
				pageLoss := make([]float64, len(margins))
				sq := make([]float64, len(margins))
				for i := range gains {
					gains[i] = make(map[string]float64)
				}
				for _, fold := range []bool{true, false} {
					var tr, va []*candPage
					for _, cp := range a {
						if (hash(cp.name)>>selectFoldBit&1 == 0) == fold {
							tr = append(tr, cp)
						} else if !cp.locked {
							va = append(va, cp)
						}
					}
					m := fitBagged(tr, lambda, setup.shared, setup.relative)
					for i, mg := range margins {
						for _, cp := range va {
							d := m.choose(cp, mg) - cp.cur
							gains[i][cp.group] += d
							sq[i] += d * d
							if cp.group == corpus.Readability || cp.group == corpus.Eval {
								pageLoss[i] = max(pageLoss[i], -d)
							}
						}
					}
				}
				for i, mg := range margins {
					st := setting{gate: gate, lambda: lambda, margin: mg, worst: math.Inf(1), shared: setup.shared, relative: setup.relative, prose: prose, pageLoss: pageLoss[i]}
					for _, g := range groups() {
						st.gain += gains[i][g]
						// The mean change over every half-A page of the
						// group, gated or not: what the bench reports.
						if d := gains[i][g] / float64(max(nA[g], 1)); d < st.worst {
							st.worst, st.worstGroup = d, g
						}
					}
					st.gain /= float64(total)
					st.se = math.Sqrt(max(0, sq[i]/float64(total)-st.gain*st.gain) / float64(total))
					res = append(res, st)
					fmt.Fprintf(os.Stderr, "gate %g prose %d lambda %g shared %v relative %v margin %g: cross-validated mean gain on A %+.4f (s.e. %.4f), worst group %s %+.4f, worst readability or eval page %+.4f\n",
						gate, prose, lambda, setup.shared, setup.relative, mg, st.gain, st.se, st.worstGroup, st.worst, -st.pageLoss)
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
	// The best allowed gain on the folds. (The one-standard-error rule,
	// the setting that judges fewest pages within a standard error of
	// the best, chose gate 0.25: variant v11 in bench/content/README.md,
	// half B gained 73 % of A.)
	best := res[0]
	if selectFixed != "" {
		var g, l, mg float64
		var pr int
		var sh bool
		if _, err := fmt.Sscanf(selectFixed, "%g,%d,%g,%t,%g", &g, &pr, &l, &sh, &mg); err != nil {
			return fmt.Errorf("-setting %q: want gate,prose,lambda,shared,margin: %v", selectFixed, err)
		}
		found := false
		for _, st := range res {
			if st.gate == g && st.prose == pr && st.lambda == l && st.shared == sh && st.margin == mg {
				best, found = st, true
				break
			}
		}
		if !found {
			return fmt.Errorf("-setting %q: not among the settings tried", selectFixed)
		}
	}
	fmt.Fprintf(os.Stderr, "chosen: gate %g prose %d lambda %g shared %v margin %g, gain %+.4f (s.e. %.4f)\n",
		best.gate, best.prose, best.lambda, best.shared, best.margin, best.gain, best.se)
	a := fitPages(cps, best.gate, best.prose)
	form := "a model per kind"
	if best.shared {
		form = "one model, a bias per kind"
	}
	if best.relative {
		form += ", fitted to the gain over the current choice"
	}
	if selectBags > 1 {
		form += fmt.Sprintf(", the mean of %d fits on resamples of the pages (seed %d)", selectBags, selectSeed)
	}
	m := fitBagged(a, best.lambda, best.shared, best.relative)
	if err := reportChoices(cps, m, best.gate, best.prose, best.margin); err != nil {
		return err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by go run ./bench/pagetype -train select; DO NOT EDIT.\n\n")
	fmt.Fprintf(&buf, "package content\n\n")
	fmt.Fprintf(&buf, "// The selector's weights, fitted on the %d pages of half A of the three\n", len(a))
	how := "chosen by\n// cross-validation on A"
	if selectFixed != "" {
		how = "fixed (-setting);\n// cross-validated on A"
	}
	fmt.Fprintf(&buf, "// corpora under the gate (%s); gate %g, L2 penalty %g and margin %g %s (mean gain %+.4f over A's %d pages, standard error\n// %.4f; worst group %s %+.4f).\n\n", form, best.gate, best.lambda, best.margin, how, best.gain, total, best.se, best.worstGroup, best.worst)
	fmt.Fprintf(&buf, "// SelectArticleProb is the probability of the article type from which\n// a page keeps the pipeline's choice without computing candidates.\n")
	fmt.Fprintf(&buf, "const SelectArticleProb = %g\n\n", best.gate)
	fmt.Fprintf(&buf, "// selectProseWords is the length from which a readability article of\n// prose (link density under 0.05) is kept without candidates; 0: none.\n")
	fmt.Fprintf(&buf, "const selectProseWords = %d\n\n", best.prose)
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

// cachedCandidatePages is candidatePages, read from or written to the
// gob file cache when cache is not empty. The cache knows nothing of
// the features' code: remove it when they change.
func cachedCandidatePages(wcxbDir, cache string) ([]*candPage, error) {
	type gc struct {
		Kind            int
		F               []float64
		F1, Score       float64
		Current, Chosen bool
	}
	type gp struct {
		Name, Group   string
		HalfA, Locked bool
		Probs         []float64
		Cands         []gc
		Cur, Chosen   float64
	}
	if cache != "" {
		if f, err := os.Open(cache); err == nil {
			defer f.Close()
			var ps []gp
			if err := gob.NewDecoder(f).Decode(&ps); err != nil {
				return nil, err
			}
			out := make([]*candPage, len(ps))
			for i, p := range ps {
				cp := &candPage{name: p.Name, group: p.Group, halfA: p.HalfA, locked: p.Locked, probs: p.Probs, cur: p.Cur, chosen: p.Chosen}
				for _, c := range p.Cands {
					cp.cands = append(cp.cands, cand{kind: c.Kind, score: c.Score, f: c.F, f1: c.F1, current: c.Current, chosen: c.Chosen})
				}
				out[i] = cp
			}
			return out, nil
		}
	}
	cps, err := candidatePages(wcxbDir)
	if err != nil || cache == "" {
		return cps, err
	}
	ps := make([]gp, len(cps))
	for i, cp := range cps {
		p := gp{Name: cp.name, Group: cp.group, HalfA: cp.halfA, Locked: cp.locked, Probs: cp.probs, Cur: cp.cur, Chosen: cp.chosen}
		for _, c := range cp.cands {
			p.Cands = append(p.Cands, gc{Kind: c.kind, Score: c.score, F: c.f, F1: c.f1, Current: c.current, Chosen: c.chosen})
		}
		ps[i] = p
	}
	f, err := os.Create(cache)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return cps, gob.NewEncoder(f).Encode(ps)
}

// listSwitches prints every half-A page on which the selector switches:
// the kind it takes, the F1 before and after and the candidate's
// features against the article.
func listSwitches(cps []*candPage) {
	fmt.Printf("| group | page | kind | F1 before | after | log words | over article | article's it holds | in article | link density | words per line | p(article) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, cp := range cps {
		if !cp.halfA {
			continue
		}
		for _, c := range cp.cands {
			if c.chosen && !c.current {
				fmt.Printf("| %s | %s | %s<-%s | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", cp.group, cp.name, content.CandidateKinds[c.kind], content.CandidateKinds[cp.curKind()], cp.cur, c.f1,
					c.f[1], c.f[4], c.f[5], c.f[6], c.f[3], c.f[11], cp.probs[0])
			}
		}
	}
	fmt.Printf("\nhalf-A readability and eval pages the selector judges, every candidate: kind, F1, predicted score (current marked *), extra share, short, links, article prose, dropped prose\n\n")
	for _, cp := range cps {
		if !cp.halfA || !cp.gated() || cp.group != corpus.Readability && cp.group != corpus.Eval {
			continue
		}
		fmt.Printf("%s %s p(article) %.2f:", cp.group, cp.name, cp.probs[0])
		for _, c := range cp.cands {
			mark := ""
			if c.current {
				mark = "*"
			}
			if c.chosen {
				mark += "+"
			}
			fmt.Printf("  %s%s %.3f/%.3f [%.2f %.2f %.2f %.1f %.2f]", content.CandidateKinds[c.kind], mark, c.f1, c.score, c.f[16], c.f[17], c.f[18], c.f[19], c.f[20])
		}
		fmt.Println()
	}
}

// curKind is the kind of the page's current choice.
func (cp *candPage) curKind() int {
	for _, c := range cp.cands {
		if c.current {
			return c.kind
		}
	}
	return 0
}

// fitPages are the half-A pages the selector's models are fitted on
// under a gate and a prose guard: those it judges, and those whose
// current choice is the item profile's region under the gate. The
// selector does not overrule that region (HTML keeps it), but its
// pages' candidates (the region around the <h1>, the body of a shop's
// category page) teach the models what a wider or narrower region is
// worth beside a list of items.
func fitPages(cps []*candPage, gate float64, prose int) []*candPage {
	gate = max(gate, selectFitGate)
	var a []*candPage
	for _, cp := range cps {
		if !cp.halfA || prose > 0 && cp.prose(prose) {
			continue
		}
		if cp.gatedAt(gate) || cp.curKind() == kindIndex("items") && !takenForForum(cp.probs) && cp.probs[0] < gate {
			a = append(a, cp)
		}
	}
	return a
}

// crossFit replaces the type probabilities of half A's wcxb-dev pages,
// in the gate and in every candidate's p(type) features, with
// out-of-fold ones: each page read by the classifier fitted on the
// other fold (folds by the hash's second bit, the selector's folds too;
// the penalty chosen as -train types chooses it). The compiled
// classifier was fitted on those very pages, so it reads them with a
// confidence it does not have on pages it never saw, and a selector
// fitted to that confidence learns weights, and a gate, that do not
// carry to half B or over a retrain of the classifier. The
// readability and trafilatura-eval pages keep theirs: the classifier
// was never fitted on them. What the pipeline chose (the current
// candidate, a profile's copy) stays as the compiled classifier made it.
func crossFit(wcxbDir string, cps []*candPage) error {
	pages, err := load(wcxbDir)
	if err != nil {
		return err
	}
	var xs [][]float64
	var ys []int
	var fold []bool
	var names []string
	for _, p := range pages {
		if !p.halfA {
			continue
		}
		f, _, err := content.PageTypeFeatures(p.html, p.url)
		if err != nil {
			return err
		}
		xs, ys = append(xs, f), append(ys, p.label)
		fold = append(fold, hash(p.name)&2 == 0)
		names = append(names, p.name)
	}
	lambda, _ := typesLambda(xs, ys, fold)
	byName := make(map[string][]float64, len(names))
	for i, pr := range foldProbs(xs, ys, fold, lambda) {
		byName[names[i]] = pr
	}
	first := -1
	for i, n := range content.SelectFeatureNames {
		if n == "p("+string(content.PageTypes[0])+")" {
			first = i
		}
	}
	if first < 0 {
		return fmt.Errorf("crossFit: no p(type) features among the selector's")
	}
	moved := 0
	for _, cp := range cps {
		if !cp.halfA || cp.group == corpus.Readability || cp.group == corpus.Eval {
			continue
		}
		pr, ok := byName[cp.name]
		if !ok {
			continue
		}
		if (cp.probs[0] < selectArticleProb) != (pr[0] < selectArticleProb) {
			moved++
		}
		cp.probs = pr
		for i := range cp.cands {
			copy(cp.cands[i].f[first:], pr)
		}
	}
	fmt.Fprintf(os.Stderr, "cross-fitted type probabilities (penalty %g) for %d half-A wcxb-dev pages; %d cross the gate %g\n", lambda, len(byName), moved, selectArticleProb)
	return nil
}

// dropTypeProbs zeroes every candidate's p(type) features (-selecttypes=false):
// a selector that reads the classifier only through its gate.
func dropTypeProbs(cps []*candPage) {
	for _, cp := range cps {
		for i := range cp.cands {
			for j, n := range content.SelectFeatureNames {
				if len(n) > 2 && n[:2] == "p(" {
					cp.cands[i].f[j] = 0
				}
			}
		}
	}
}

// selectPrior, when set (-prior FILE, a select_model.go), holds the
// weights per kind that fitSelect starts from and shrinks toward: a
// refit that moves from the selector in use only as far as the pages ask.
var selectPrior [][]float64

// readPrior reads the weights of a select_model.go written by -train select.
func readPrior(path string) ([][]float64, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]float64
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") || !strings.Contains(line, "},") || !strings.Contains(line, "//") {
			continue
		}
		var row []float64
		for _, f := range strings.Split(line[1:strings.Index(line, "}")], ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			row = append(row, v)
		}
		if len(row) != len(content.SelectFeatureNames) {
			return nil, fmt.Errorf("%s: %d weights in a row, want %d", path, len(row), len(content.SelectFeatureNames))
		}
		out = append(out, row)
	}
	if len(out) != len(content.CandidateKinds) {
		return nil, fmt.Errorf("%s: %d rows, want %d", path, len(out), len(content.CandidateKinds))
	}
	return out, nil
}
