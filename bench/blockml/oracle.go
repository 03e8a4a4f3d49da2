package main

import (
	"fmt"
	"math"
	"sort"

	"webacq/internal/content"
)

// oracle prints the page F1 when exactly the blocks labelled out are
// dropped (the ceiling of a block filter), per type.
func oracle(ps []*sPage) {
	sum := map[string][3]float64{}
	for _, p := range ps {
		d := make([]bool, len(p.Blocks))
		for i, l := range p.labels {
			d[i] = l < 0.5
		}
		s := sum[p.Type]
		s[0] += p.base
		s[1] += p.f1(d)
		s[2]++
		sum[p.Type] = s
		a := sum["all"]
		a[0] += p.base
		a[1] += p.f1(d)
		a[2]++
		sum["all"] = a
	}
	var ts []string
	for t := range sum {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	for _, t := range ts {
		s := sum[t]
		fmt.Printf("oracle %-14s n %3.0f base %.4f oracle %.4f\n", t, s[2], s[0]/s[2], s[1]/s[2])
	}
}

// perTypeCuts reports, for one penalty and guard, the cross-validated
// gain with one cut for all pages against one cut per predicted page
// type (the argmax of the block features' p(type)), each chosen on the
// same folds' scores (so optimistic).
func perTypeCuts(ps []*sPage, k int, mask []bool, lam, guard float64) {
	ws := make([][]float64, k)
	for f := 0; f < k; f++ {
		var tr []*sPage
		for _, p := range ps {
			if p.fold != f {
				tr = append(tr, p)
			}
		}
		ws[f] = fit(tr, lam, mask)
	}
	typeOf := func(p *sPage) int {
		if len(p.Blocks) == 0 {
			return -1
		}
		x := p.Blocks[0].Features
		best := 0
		for t := 1; t < 7; t++ {
			if x[content.BlockTypeFeature+t] > x[content.BlockTypeFeature+best] {
				best = t
			}
		}
		return best
	}
	gain := map[int]map[float64]float64{}
	for _, p := range ps {
		t := typeOf(p)
		if gain[t] == nil {
			gain[t] = map[float64]float64{}
		}
		for _, c := range cuts {
			f1 := p.base
			if d := drops(p, ws[p.fold], c, guard); d != nil {
				f1 = p.f1(d)
			}
			gain[t][c] += f1 - p.base
		}
	}
	one := map[float64]float64{}
	per := 0.0
	for t, g := range gain {
		bc := cuts[0]
		for _, c := range cuts {
			one[c] += g[c]
			if g[c] > g[bc] {
				bc = c
			}
		}
		fmt.Printf("type %d: best cut %.2f gain %+.4f per page of A\n", t, bc, g[bc]/float64(len(ps)))
		per += g[bc]
	}
	bestOne := 0.0
	for _, c := range cuts {
		bestOne = math.Max(bestOne, one[c])
	}
	fmt.Printf("one cut %+.4f, per-type cuts %+.4f\n", bestOne/float64(len(ps)), per/float64(len(ps)))
}
