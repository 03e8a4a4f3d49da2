// Command confcv sweeps confidence models on the table that
// go run ./bench/pagetype -conftsv FILE [-conftypes] writes: it fits
// trainConfidence's logistic model (or gradient-boosted trees, -gbm) on
// half A over a subset of the columns, and prints half A fitted and
// cross-validated (5 folds by the name's hash) and half B's Spearman,
// AUC for F1 < 0.5 and MAE beside the compiled confidence's, with the
// spread of B's differences over resamples of its pages.
//
//	go run ./bench/confcv [-f a,b,c | -drop a,b] [-l lambda] FILE
//	UNI=1 go run ./bench/confcv FILE          # each column alone, per half
//	FWD=1 go run ./bench/confcv FILE          # greedy forward selection by A's CV
//	INTER=a*b,c*d ...                         # add products of columns
//	TGT=rank|bin|sq ...                       # fit another target (A's true F1 still scores)
//	SPLIT=judged F1=cols [ALL1=1] ...         # a model per value of a 0/1 column
//	PEER=DIR/wcxb-scores.tsv ...              # swap to a peer's text under a confidence
//
// An experiment tool (bench/content/README.md, "Issue 20, conf").
package main

import (
	"bufio"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"

	"webacq/bench/internal/rankstat"
)

type row struct {
	name, half, label string
	f1, conf          float64
	x                 []float64
}

func load(path string) ([]string, []row) {
	f, _ := os.Open(path)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan()
	hdr := strings.Split(sc.Text(), "\t")[7:]
	var rs []row
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		r := row{name: c[0], half: c[1], label: c[2]}
		r.f1, _ = strconv.ParseFloat(c[3], 64)
		r.conf, _ = strconv.ParseFloat(c[4], 64)
		for _, v := range c[7:] {
			x, _ := strconv.ParseFloat(v, 64)
			r.x = append(r.x, x)
		}
		rs = append(rs, r)
	}
	return hdr, rs
}

type model struct {
	idx         []int
	mean, scale []float64
	w           []float64
	b           float64
}

func fit(rs []row, idx []int, lambda float64) *model {
	d := len(idx)
	m := &model{idx: idx, mean: make([]float64, d), scale: make([]float64, d), w: make([]float64, d)}
	n := float64(len(rs))
	for _, r := range rs {
		for i, k := range idx {
			m.mean[i] += r.x[k] / n
		}
	}
	for _, r := range rs {
		for i, k := range idx {
			dd := r.x[k] - m.mean[i]
			m.scale[i] += dd * dd / n
		}
	}
	for i := range m.scale {
		m.scale[i] = math.Sqrt(m.scale[i])
		if m.scale[i] == 0 {
			m.scale[i] = 1
		}
	}
	z := make([][]float64, len(rs))
	for j, r := range rs {
		z[j] = make([]float64, d)
		for i, k := range idx {
			z[j][i] = (r.x[k] - m.mean[i]) / m.scale[i]
		}
	}
	g := make([]float64, d)
	for it := 0; it < 3000; it++ {
		clear(g)
		gb := 0.0
		for j, x := range z {
			s := m.b
			for i, v := range x {
				s += m.w[i] * v
			}
			e := (1/(1+math.Exp(-s)) - rs[j].f1) / n
			gb += e
			for i, v := range x {
				g[i] += e * v
			}
		}
		m.b -= 0.5 * gb
		for i := range m.w {
			m.w[i] -= 0.5 * (g[i] + lambda*m.w[i])
		}
	}
	return m
}

func (m *model) pred(r row) float64 {
	s := m.b
	for i, k := range m.idx {
		s += m.w[i] * (r.x[k] - m.mean[i]) / m.scale[i]
	}
	c := 1 / (1 + math.Exp(-s))
	return math.Round(c*100) / 100
}

func hash(name string) uint32 { h := fnv.New32a(); h.Write([]byte(name)); return h.Sum32() }

func main() {
	feats := flag.String("f", "", "comma list of feature names (empty: all)")
	drop := flag.String("drop", "", "comma list to drop")
	lambda := flag.Float64("l", 0.001, "L2")
	folds := flag.Int("k", 5, "CV folds")
	boot := flag.Int("boot", 1000, "bootstrap resamples of B")
	weights := flag.Bool("w", false, "print weights")
	rounds := flag.Int("gbm", 0, "gradient boosting rounds (0: logistic)")
	depth := flag.Int("depth", 2, "tree depth")
	minLeaf := flag.Int("leaf", 20, "min leaf")
	lr := flag.Float64("lr", 0.1, "shrinkage")
	flag.Parse()
	hdr, rs := load(flag.Arg(0))
	for _, pr := range strings.Split(os.Getenv("INTER"), ",") {
		ab := strings.Split(pr, "*")
		if len(ab) != 2 {
			continue
		}
		ia, ib := -1, -1
		for k, h := range hdr {
			if h == ab[0] {
				ia = k
			}
			if h == ab[1] {
				ib = k
			}
		}
		hdr = append(hdr, pr)
		for i := range rs {
			rs[i].x = append(rs[i].x, rs[i].x[ia]*rs[i].x[ib])
		}
	}
	if p := os.Getenv("PEER"); p != "" {
		peerSwap(rs, p)
		return
	}
	var A, B []row
	for _, r := range rs {
		if r.half == "A" {
			A = append(A, r)
		} else {
			B = append(B, r)
		}
	}
	if os.Getenv("FWD") != "" {
		forward(hdr, A, B, *folds, *lambda, 14)
		return
	}
	if os.Getenv("UNI") != "" {
		univariate(hdr, rs)
		return
	}
	var idx []int
	want := map[string]bool{}
	for _, f := range strings.Split(*feats, ",") {
		if f != "" {
			want[f] = true
		}
	}
	dropm := map[string]bool{}
	for _, f := range strings.Split(*drop, ",") {
		dropm[f] = true
	}
	for k, h := range hdr {
		if (len(want) == 0 || want[h]) && !dropm[h] {
			idx = append(idx, k)
		}
	}
	if os.Getenv("TGT") != "" {
		// fit to a transformed target; keep the true f1 for evaluation in a copy
		f := make([]float64, len(A))
		for i, r := range A {
			f[i] = r.f1
		}
		rk := rankstat.Ranks(f)
		trueF := f
		for i := range A {
			switch os.Getenv("TGT") {
			case "rank":
				A[i].f1 = (rk[i] + 0.5) / float64(len(A))
			case "bin":
				if f[i] >= 0.5 {
					A[i].f1 = 1
				} else {
					A[i].f1 = 0
				}
			case "sq":
				A[i].f1 = f[i] * f[i]
			}
		}
		tgtTrue = trueF
	}
	if os.Getenv("SPLIT") != "" {
		col := idxOf(hdr, os.Getenv("SPLIT"))[0]
		l1 := *lambda
		if v := os.Getenv("L1"); v != "" {
			l1, _ = strconv.ParseFloat(v, 64)
		}
		runSplit(hdr, A, B, col, idxOf(hdr, os.Getenv("F0")), idxOf(hdr, os.Getenv("F1")), *lambda, l1, os.Getenv("ALL1") != "", *folds, *boot)
		return
	}
	// CV on A
	cvp := make([]float64, len(A))
	for fo := 0; fo < *folds; fo++ {
		var tr []row
		for j, r := range A {
			if int(hash(r.name)>>3)%*folds != fo {
				tr = append(tr, r)
			}
			_ = j
		}
		var m predictor
		if *rounds > 0 {
			m = fitGBM(tr, idx, *rounds, *depth, *minLeaf, *lr)
		} else {
			m = fit(tr, idx, *lambda)
		}
		for j, r := range A {
			if int(hash(r.name)>>3)%*folds == fo {
				cvp[j] = m.pred(r)
			}
		}
	}
	var m predictor
	var lm *model
	if *rounds > 0 {
		m = fitGBM(A, idx, *rounds, *depth, *minLeaf, *lr)
	} else {
		lm = fit(A, idx, *lambda)
		m = lm
	}
	report := func(name string, rows []row, p []float64) {
		f := make([]float64, len(rows))
		for i, r := range rows {
			f[i] = r.f1
			if tgtTrue != nil && r.half == "A" {
				f[i] = tgtTrue[i]
			}
		}
		summarize(name, rows, p, f)
	}
	pa, pb := predictAll(m, A), predictAll(m, B)
	report("A-fit", A, pa)
	report("A-cv", A, cvp)
	report("B", B, pb)
	// bootstrap paired deltas on B
	rng := rand.New(rand.NewSource(1))
	var dsp, dauc, ssp []float64
	for it := 0; it < *boot; it++ {
		var p, o, f []float64
		for range B {
			j := rng.Intn(len(B))
			p = append(p, pb[j])
			o = append(o, B[j].conf)
			f = append(f, B[j].f1)
		}
		dsp = append(dsp, rankstat.Spearman(p, f)-rankstat.Spearman(o, f))
		ssp = append(ssp, rankstat.Spearman(p, f))
		a1, a0 := rankstat.AUCLow(p, f), rankstat.AUCLow(o, f)
		if !math.IsNaN(a1) && !math.IsNaN(a0) {
			dauc = append(dauc, a1-a0)
		}
	}
	q := func(v []float64) string {
		sort.Float64s(v)
		return fmt.Sprintf("[%.3f, %.3f] (sd %.3f)", v[len(v)*25/1000], v[len(v)*975/1000], sd(v))
	}
	fmt.Printf("B boot: dSpearman 95%% %s  dAUC 95%% %s  Spearman sd %.3f\n", q(dsp), q(dauc), sd(ssp))
	if *weights && lm != nil {
		m := lm
		for i, k := range idx {
			fmt.Printf("  %-16s %+.3f\n", hdr[k], m.w[i])
		}
	}
}

// summarize prints how the predictions p of rows rank the pages by f
// (Spearman, AUC of F1 < 0.5), how they split the pages' F1 at 0.5 and
// their mean absolute error, beside the committed confidence's ranking.
func summarize(name string, rows []row, p, f []float64) {
	old := make([]float64, len(rows))
	var nlo, lo, nhi, hi, mae float64
	for i, r := range rows {
		old[i] = r.conf
		mae += math.Abs(p[i] - r.f1)
		if p[i] < 0.5 {
			nlo++
			lo += r.f1
		} else {
			nhi++
			hi += r.f1
		}
	}
	fmt.Printf("%-6s sp %.3f auc %.3f  <0.5 %3.0f F1 %.3f  >=0.5 %3.0f F1 %.3f mae %.3f | old sp %.3f auc %.3f\n", name,
		rankstat.Spearman(p, f), rankstat.AUCLow(p, f), nlo, lo/max(nlo, 1), nhi, hi/max(nhi, 1), mae/float64(len(rows)),
		rankstat.Spearman(old, f), rankstat.AUCLow(old, f))
}

func sd(v []float64) float64 {
	var m, s float64
	for _, x := range v {
		m += x / float64(len(v))
	}
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}

var tgtTrue []float64

type predictor interface{ pred(row) float64 }

// predictAll is m's prediction for each of rows.
func predictAll(m predictor, rows []row) []float64 {
	p := make([]float64, len(rows))
	for i, r := range rows {
		p[i] = m.pred(r)
	}
	return p
}
