package main

import (
	"fmt"
	"strings"

	"webacq/bench/internal/rankstat"
)

// forward greedy selection by A-CV spearman, starting from start.
func forward(hdr []string, A, B []row, folds int, lambda float64, steps int) {
	cv := func(idx []int) (float64, float64) {
		p := make([]float64, len(A))
		for fo := 0; fo < folds; fo++ {
			var tr []row
			for _, r := range A {
				if int(hash(r.name)>>3)%folds != fo {
					tr = append(tr, r)
				}
			}
			m := fit(tr, idx, lambda)
			for j, r := range A {
				if int(hash(r.name)>>3)%folds == fo {
					p[j] = m.pred(r)
				}
			}
		}
		f := make([]float64, len(A))
		for i, r := range A {
			f[i] = r.f1
		}
		return rankstat.Spearman(p, f), rankstat.AUCLow(p, f)
	}
	evalB := func(idx []int) (float64, float64) {
		m := fit(A, idx, lambda)
		p := make([]float64, len(B))
		f := make([]float64, len(B))
		for i, r := range B {
			p[i] = m.pred(r)
			f[i] = r.f1
		}
		return rankstat.Spearman(p, f), rankstat.AUCLow(p, f)
	}
	var sel []int
	used := map[int]bool{}
	for s := 0; s < steps; s++ {
		best, bk, ba := -1.0, -1, 0.0
		for k := range hdr {
			if used[k] {
				continue
			}
			sp, a := cv(append(append([]int{}, sel...), k))
			if sp+a > best {
				best, bk, ba = sp+a, k, a
			}
		}
		sel = append(sel, bk)
		used[bk] = true
		bs, bauc := evalB(sel)
		var names []string
		for _, k := range sel {
			names = append(names, hdr[k])
		}
		fmt.Printf("step %d +%-15s A-cv sp %.3f auc %.3f | B sp %.3f auc %.3f\n", s+1, hdr[bk], best-ba, ba, bs, bauc)
		_ = strings.Join
		if s == steps-1 {
			fmt.Println(strings.Join(names, ","))
		}
	}
}
