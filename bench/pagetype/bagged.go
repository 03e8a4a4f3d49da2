package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"

	"webacq/internal/content"
)

// A steadier selector (i20-steady): the mean of many fits, each on a
// resample of the fit's pages, instead of one fit. The models are
// logistic in the same features, so the mean of their weights is the
// mean of their log-odds: one weight vector per kind, as before.

// selectBags is how many fits the selector's weights are the mean of
// (-bags N; 1: one fit on the pages as they are, main's trainer).
var selectBags = 1

// selectFitGate, when above the gate (-fitgate G), is the gate of the
// pages the models are fitted on: pages the selector does not judge
// (p(article) from the gate up to G) teach it too, so that a classifier
// that moves pages across the gate moves fewer of the fit's pages.
var selectFitGate float64

// selectSeed seeds the resamples (-seed).
var selectSeed int64 = 1

// selectFoldBit is the bit of the page name's hash that splits half A
// into the cross-validation's two folds (-foldbit; 1, the hash's second
// bit, is main's; bit 0 is the half itself).
var selectFoldBit uint = 1

// selectChoices and selectAgainst: -choices FILE writes every half-A
// page's final choice under the fitted selector; -against FILE reads
// such a file and counts the pages whose choice differs.
var selectChoices, selectAgainst string

// fitBagged fits the selector on cps: one fit, or with selectBags > 1 the
// mean of selectBags fits, each on a bootstrap resample of the pages (a
// page's candidates stay together; drawn with replacement, as many pages
// as cps holds), from a generator seeded by selectSeed.
func fitBagged(cps []*candPage, lambda float64, shared, relative bool) selModel {
	fit := fitSelect
	if shared {
		fit = fitShared
	}
	if selectBags <= 1 {
		return fit(cps, lambda, relative)
	}
	var sum selModel
	rng := rand.New(rand.NewSource(selectSeed))
	sample := make([]*candPage, len(cps))
	for b := 0; b < selectBags; b++ {
		for i := range sample {
			sample[i] = cps[rng.Intn(len(cps))]
		}
		m := fit(sample, lambda, relative)
		if sum == nil {
			sum = make(selModel, len(m))
			for k := range m {
				sum[k] = make([]float64, len(m[k]))
			}
		}
		for k := range m {
			for i, v := range m[k] {
				sum[k][i] += v / float64(selectBags)
			}
		}
	}
	return sum
}

// chooseIdx is choose's index: the candidate m takes on cp, or -1 for
// the current choice.
func (m selModel) chooseIdx(cp *candPage, margin float64) int {
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
		return -1
	}
	return best
}

// choice is a half-A page's final choice: the kind taken, and its F1.
type choice struct {
	kind string
	f1   float64
}

// finalChoice is what the selector m leaves on cp under the gate, the
// prose guard and the margin.
func finalChoice(cp *candPage, m selModel, gate float64, prose int, margin float64) choice {
	cur := choice{kind: "none", f1: cp.cur}
	for _, c := range cp.cands {
		if c.current {
			cur.kind = content.CandidateKinds[c.kind]
		}
	}
	if len(cp.cands) == 0 || !cp.gatedAt(gate) || prose > 0 && cp.prose(prose) {
		return cur
	}
	i := m.chooseIdx(cp, margin)
	if i < 0 {
		return cur
	}
	return choice{kind: content.CandidateKinds[cp.cands[i].kind], f1: cp.cands[i].f1}
}

// reportChoices prints, per group of half A, the mean F1 before the
// selector, with the compiled one (as the candidates were scored) and
// with m; writes -choices and compares with -against.
func reportChoices(cps []*candPage, m selModel, gate float64, prose int, margin float64) error {
	n := map[string]float64{}
	cur := map[string]float64{}
	old := map[string]float64{}
	nw := map[string]float64{}
	got := map[string]choice{}
	var names []string
	for _, cp := range cps {
		if !cp.halfA {
			continue
		}
		c := finalChoice(cp, m, gate, prose, margin)
		got[cp.name+" "+cp.group] = c
		names = append(names, cp.name+" "+cp.group)
		for _, g := range []string{"all", cp.group} {
			n[g]++
			cur[g] += cp.cur
			old[g] += cp.chosen
			nw[g] += c.f1
		}
	}
	fmt.Fprintf(os.Stderr, "half A, mean per-page F1 (the trainer's measure): group, pages, before the selector, compiled selector, this fit\n")
	for _, g := range append([]string{"all"}, groups()...) {
		if n[g] > 0 {
			fmt.Fprintf(os.Stderr, "  %-14s %4.0f  %.4f  %.4f  %.4f  (%+.4f)\n", g, n[g], cur[g]/n[g], old[g]/n[g], nw[g]/n[g], (nw[g]-old[g])/n[g])
		}
	}
	sort.Strings(names)
	if selectChoices != "" {
		var b strings.Builder
		for _, k := range names {
			fmt.Fprintf(&b, "%s %s %.4f\n", k, got[k].kind, got[k].f1)
		}
		if err := os.WriteFile(selectChoices, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if selectAgainst != "" {
		f, err := os.Open(selectAgainst)
		if err != nil {
			return err
		}
		defer f.Close()
		moved, up, down := 0, 0.0, 0.0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) != 4 {
				continue
			}
			k := fs[0] + " " + fs[1]
			c, ok := got[k]
			if !ok || c.kind == fs[2] {
				continue
			}
			was, _ := strconv.ParseFloat(fs[3], 64)
			moved++
			if d := c.f1 - was; d > 0 {
				up += d
			} else {
				down -= d
			}
			fmt.Fprintf(os.Stderr, "  moved: %s %s %.3f -> %s %.3f\n", k, fs[2], was, c.kind, c.f1)
		}
		fmt.Fprintf(os.Stderr, "against %s: %d half-A pages change their choice (F1 +%.2f, -%.2f)\n", selectAgainst, moved, up, down)
	}
	return nil
}
