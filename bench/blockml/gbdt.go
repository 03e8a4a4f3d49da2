package main

import (
	"math"
	"os"
	"sort"
)

// A small gradient-boosted tree ensemble for the logistic loss: trees of
// a fixed depth stored as complete binary trees (internal node i has
// children 2i+1 and 2i+2; a node that does not split sends every block
// left, feature -1), Newton leaf values, shrinkage, splits over at most
// maxBins quantile cuts per feature. Deterministic: no sampling.

const maxBins = 32

type tree struct {
	feat []int     // per internal node; -1 = no split (left)
	thr  []float64 // x <= thr goes left
	leaf []float64
}

type ensemble struct {
	base  float64
	trees []tree
	depth int
}

func (e *ensemble) margin(x []float64, upto int) float64 {
	z := e.base
	for t := 0; t < upto && t < len(e.trees); t++ {
		z += e.trees[t].eval(x, e.depth)
	}
	return z
}

func (t *tree) eval(x []float64, depth int) float64 {
	i := 0
	for d := 0; d < depth; d++ {
		f := t.feat[i]
		if f < 0 || x[f] <= t.thr[i] {
			i = 2*i + 1
		} else {
			i = 2*i + 2
		}
	}
	return t.leaf[i-(1<<depth-1)]
}

type sample struct {
	x   []float64
	y   float64
	w   float64
	bin []uint8
}

type gbParams struct {
	trees    int
	depth    int
	rate     float64
	lambda   float64 // L2 on leaf values
	minHess  float64 // least hessian weight in a child
	features []bool  // mask
}

// cutsOf returns up to maxBins-1 quantile cut values per feature.
func cutsOf(ss []sample, d int, mask []bool) [][]float64 {
	cuts := make([][]float64, d)
	vals := make([]float64, len(ss))
	for f := 0; f < d; f++ {
		if !mask[f] {
			continue
		}
		for i, s := range ss {
			vals[i] = s.x[f]
		}
		sort.Float64s(vals)
		var c []float64
		for b := 1; b < maxBins; b++ {
			v := vals[b*len(vals)/maxBins]
			if len(c) == 0 || v > c[len(c)-1] {
				c = append(c, v)
			}
		}
		// x <= c[k] is bin k; a cut equal to the maximum splits nothing.
		if len(c) > 0 && c[len(c)-1] >= vals[len(vals)-1] {
			c = c[:len(c)-1]
		}
		cuts[f] = c
	}
	return cuts
}

func binOf(c []float64, x float64) uint8 {
	return uint8(sort.SearchFloat64s(c, x)) // first cut >= x
}

func trainGBDT(ss []sample, p gbParams) *ensemble {
	d := len(ss[0].x)
	cuts := cutsOf(ss, d, p.features)
	for i := range ss {
		ss[i].bin = make([]uint8, d)
		for f := 0; f < d; f++ {
			if cuts[f] != nil {
				ss[i].bin[f] = binOf(cuts[f], ss[i].x[f])
			}
		}
	}
	sw, sy := 0.0, 0.0
	for _, s := range ss {
		sw += s.w
		sy += s.w * s.y
	}
	pr := math.Min(math.Max(sy/sw, 1e-6), 1-1e-6)
	e := &ensemble{base: math.Log(pr / (1 - pr)), depth: p.depth}
	margin := make([]float64, len(ss))
	for i := range margin {
		margin[i] = e.base
	}
	g := make([]float64, len(ss))
	h := make([]float64, len(ss))
	node := make([]int, len(ss))
	nInt := 1<<p.depth - 1
	for t := 0; t < p.trees; t++ {
		for i, s := range ss {
			q := 1 / (1 + math.Exp(-margin[i]))
			g[i] = s.w * (q - s.y)
			h[i] = s.w * math.Max(q*(1-q), 1e-6)
			node[i] = 0
		}
		tr := tree{feat: make([]int, nInt), thr: make([]float64, nInt), leaf: make([]float64, nInt+1)}
		for lvl := 0; lvl < p.depth; lvl++ {
			first := 1<<lvl - 1
			width := 1 << lvl
			// Histograms per node of this level, per feature and bin.
			type hist struct{ g, h [maxBins]float64 }
			hs := make([][]hist, width)
			for k := range hs {
				hs[k] = make([]hist, d)
			}
			tg := make([]float64, width)
			th := make([]float64, width)
			for i, s := range ss {
				k := node[i] - first
				tg[k] += g[i]
				th[k] += h[i]
				hk := hs[k]
				for f := 0; f < d; f++ {
					if cuts[f] == nil {
						continue
					}
					b := s.bin[f]
					hk[f].g[b] += g[i]
					hk[f].h[b] += h[i]
				}
			}
			for k := 0; k < width; k++ {
				best, bf, bb := 0.0, -1, 0
				parent := tg[k] * tg[k] / (th[k] + p.lambda)
				for f := 0; f < d; f++ {
					if cuts[f] == nil {
						continue
					}
					gl, hl := 0.0, 0.0
					for b := 0; b < len(cuts[f]); b++ {
						gl += hs[k][f].g[b]
						hl += hs[k][f].h[b]
						gr, hr := tg[k]-gl, th[k]-hl
						if hl < p.minHess || hr < p.minHess {
							continue
						}
						gain := gl*gl/(hl+p.lambda) + gr*gr/(hr+p.lambda) - parent
						if gain > best+1e-12 {
							best, bf, bb = gain, f, b
						}
					}
				}
				tr.feat[first+k] = bf
				if bf >= 0 {
					tr.thr[first+k] = cuts[bf][bb]
				}
			}
			for i, s := range ss {
				n := node[i]
				f := tr.feat[n]
				if f < 0 || s.x[f] <= tr.thr[n] {
					node[i] = 2*n + 1
				} else {
					node[i] = 2*n + 2
				}
			}
		}
		lg := make([]float64, nInt+1)
		lh := make([]float64, nInt+1)
		for i := range ss {
			l := node[i] - nInt
			lg[l] += g[i]
			lh[l] += h[i]
		}
		for l := range tr.leaf {
			tr.leaf[l] = -p.rate * lg[l] / (lh[l] + p.lambda)
		}
		for i := range ss {
			margin[i] += tr.leaf[node[i]-nInt]
		}
		e.trees = append(e.trees, tr)
	}
	return e
}

func samplesOf(ps []*sPage) []sample {
	var ss []sample
	for _, p := range ps {
		for bi, b := range p.Blocks {
			ss = append(ss, sample{x: b.Features, y: labelOf(p.labels[bi]), w: weightOf(p, bi)})
		}
	}
	return ss
}

// gbDrops is drops for an ensemble's first upto trees.
func gbDrops(p *sPage, e *ensemble, upto int, cut, guard float64) []bool {
	total, gone := 0, 0
	var d []bool
	for bi, b := range p.Blocks {
		total += len(p.blocks[bi])
		if !(opt.captions && b.Caption) && 1/(1+math.Exp(-e.margin(b.Features, upto))) < cut {
			if d == nil {
				d = make([]bool, len(p.Blocks))
			}
			d[bi] = true
			gone += len(p.blocks[bi])
		}
	}
	if d == nil || float64(gone) > guard*float64(total) {
		return nil
	}
	return d
}

type gbResult struct {
	result
	depth, trees int
}

var (
	gbDepths = []int{2, 3, 4}
	gbTrees  = []int{50, 100, 200, 400}
)

func gbCrossValidate(ps []*sPage, k int, mask []bool, rate float64) []gbResult {
	base := 0.0
	for _, p := range ps {
		base += p.base
	}
	base /= float64(len(ps))
	var rs []gbResult
	for _, depth := range gbDepths {
		es := make([]*ensemble, k)
		for f := 0; f < k; f++ {
			var tr []*sPage
			for _, p := range ps {
				if p.fold != f {
					tr = append(tr, p)
				}
			}
			es[f] = trainGBDT(samplesOf(tr), gbParams{trees: gbTrees[len(gbTrees)-1], depth: depth, rate: rate, lambda: 1, minHess: 5, features: mask})
		}
		for _, nt := range gbTrees {
			for _, cut := range cuts {
				for _, g := range guards {
					r := gbResult{result: result{cut: cut, guard: g, base: base, byType: map[string]float64{}}, depth: depth, trees: nt}
					nType := map[string]int{}
					for _, p := range ps {
						f1 := p.base
						if d := gbDrops(p, es[p.fold], nt, cut, g); d != nil {
							f1 = p.f1(d)
						}
						r.f1 += f1
						r.byType[p.Type] += f1 - p.base
						nType[p.Type]++
						if f1 > p.base+0.0005 {
							r.up++
						} else if f1 < p.base-0.0005 {
							r.down++
						}
					}
					r.f1 /= float64(len(ps))
					for t := range r.byType {
						r.byType[t] /= float64(nType[t])
					}
					rs = append(rs, r)
				}
			}
		}
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].f1 > rs[j].f1 })
	for i, r := range rs {
		if i >= 25 {
			break
		}
		printResult(os.Stdout, fmtDepth(r), r.result)
	}
	return rs
}
