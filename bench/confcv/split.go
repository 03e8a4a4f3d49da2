package main

import (
	"fmt"
	"math/rand"
	"strings"

	"webacq/bench/internal/rankstat"
)

type splitModel struct {
	col    int
	m0, m1 predictor // m0 for x[col]==0, m1 otherwise
}

func (s *splitModel) pred(r row) float64 {
	if r.x[s.col] == 0 {
		return s.m0.pred(r)
	}
	return s.m1.pred(r)
}

func idxOf(hdr []string, list string) []int {
	var out []int
	if list == "" {
		for k := range hdr {
			out = append(out, k)
		}
		return out
	}
	for _, n := range strings.Split(list, ",") {
		for k, h := range hdr {
			if h == n {
				out = append(out, k)
			}
		}
	}
	return out
}

func fitSplit(rs []row, col int, f0, f1 []int, l0, l1 float64, all1 bool) *splitModel {
	var r0, r1 []row
	for _, r := range rs {
		if r.x[col] == 0 {
			r0 = append(r0, r)
		} else {
			r1 = append(r1, r)
		}
	}
	if all1 {
		r1 = rs
	}
	return &splitModel{col: col, m0: fit(r0, f0, l0), m1: fit(r1, f1, l1)}
}

func runSplit(hdr []string, A, B []row, col int, f0, f1 []int, l0, l1 float64, all1 bool, folds, boot int) {
	cvp := make([]float64, len(A))
	for fo := 0; fo < folds; fo++ {
		var tr []row
		for _, r := range A {
			if int(hash(r.name)>>3)%folds != fo {
				tr = append(tr, r)
			}
		}
		m := fitSplit(tr, col, f0, f1, l0, l1, all1)
		for j, r := range A {
			if int(hash(r.name)>>3)%folds == fo {
				cvp[j] = m.pred(r)
			}
		}
	}
	m := fitSplit(A, col, f0, f1, l0, l1, all1)
	ev := func(name string, rows []row, p []float64) {
		f := make([]float64, len(rows))
		for i, r := range rows {
			f[i] = r.f1
		}
		summarize(name, rows, p, f)
	}
	pa, pb := predictAll(m, A), predictAll(m, B)
	ev("A-fit", A, pa)
	ev("A-cv", A, cvp)
	ev("B", B, pb)
	rng := rand.New(rand.NewSource(1))
	var dsp, dauc []float64
	for it := 0; it < boot; it++ {
		var p, o, f []float64
		for range B {
			j := rng.Intn(len(B))
			p = append(p, pb[j])
			o = append(o, B[j].conf)
			f = append(f, B[j].f1)
		}
		dsp = append(dsp, rankstat.Spearman(p, f)-rankstat.Spearman(o, f))
		dauc = append(dauc, rankstat.AUCLow(p, f)-rankstat.AUCLow(o, f))
	}
	fmt.Printf("B boot dSp mean %+.3f sd %.3f   dAUC mean %+.3f sd %.3f\n", mean(dsp), sd(dsp), mean(dauc), sd(dauc))
	// CV-A paired bootstrap vs old
	var dspa []float64
	for it := 0; it < boot; it++ {
		var p, o, f []float64
		for range A {
			j := rng.Intn(len(A))
			p = append(p, cvp[j])
			o = append(o, A[j].conf)
			f = append(f, A[j].f1)
		}
		dspa = append(dspa, rankstat.Spearman(p, f)-rankstat.Spearman(o, f))
	}
	fmt.Printf("A-cv boot dSp mean %+.3f sd %.3f\n", mean(dspa), sd(dspa))
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
