// Package rankstat holds the rank statistics the bench tools judge a
// confidence by: mid-ranks, Spearman's rank correlation and the area
// under the ROC curve of a score for "F1 < 0.5".
package rankstat

import (
	"math"
	"sort"
)

// Ranks returns the rank of each value of x from 0, tied values sharing
// the mean of their ranks.
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j) / 2
		}
		i = j + 1
	}
	return r
}

// Spearman is the rank correlation of a and b; 0 when either is
// constant.
func Spearman(a, b []float64) float64 {
	ra, rb := Ranks(a), Ranks(b)
	n := float64(len(a))
	var ma, mb float64
	for i := range ra {
		ma += ra[i] / n
		mb += rb[i] / n
	}
	var cov, va, vb float64
	for i := range ra {
		cov += (ra[i] - ma) * (rb[i] - mb)
		va += (ra[i] - ma) * (ra[i] - ma)
		vb += (rb[i] - mb) * (rb[i] - mb)
	}
	if va == 0 || vb == 0 {
		return 0
	}
	return cov / math.Sqrt(va*vb)
}

// AUCLow is the area under the ROC curve of conf as a score of "F1 <
// 0.5": the chance that a page under 0.5 gets a lower confidence than a
// page at 0.5 or more (ties count half). NaN when either side is empty.
func AUCLow(conf, f []float64) float64 {
	var bad, good []float64
	for i := range conf {
		if f[i] < 0.5 {
			bad = append(bad, conf[i])
		} else {
			good = append(good, conf[i])
		}
	}
	if len(bad) == 0 || len(good) == 0 {
		return math.NaN()
	}
	r := Ranks(append(bad, good...))
	s := 0.0
	for i := range good {
		s += r[len(bad)+i] + 1
	}
	ng, nb := float64(len(good)), float64(len(bad))
	return (s - ng*(ng+1)/2) / (ng * nb)
}
