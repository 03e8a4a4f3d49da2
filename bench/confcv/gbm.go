package main

import (
	"math"
	"sort"
)

type tnode struct {
	feat        int
	thr         float64
	left, right int // index into nodes; -1 leaf
	val         float64
}

type tree struct{ nodes []tnode }

func (t *tree) pred(x []float64) float64 {
	i := 0
	for {
		n := t.nodes[i]
		if n.left < 0 {
			return n.val
		}
		if x[n.feat] <= n.thr {
			i = n.left
		} else {
			i = n.right
		}
	}
}

type gbm struct {
	base  float64
	trees []tree
	lr    float64
	idx   []int
}

func cuts(rs []row, k int, q int) []float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.x[k]
	}
	sort.Float64s(v)
	var c []float64
	for j := 1; j < q; j++ {
		t := v[j*len(v)/q]
		if len(c) == 0 || t > c[len(c)-1] {
			c = append(c, t)
		}
	}
	return c
}

func build(rs []row, res []float64, ids []int, idx []int, cs [][]float64, depth, minLeaf int, t *tree) int {
	sum := 0.0
	for _, i := range ids {
		sum += res[i]
	}
	me := len(t.nodes)
	t.nodes = append(t.nodes, tnode{left: -1, right: -1, val: sum / float64(len(ids))})
	if depth == 0 || len(ids) < 2*minLeaf {
		return me
	}
	best, bf, bt := 0.0, -1, 0.0
	tot := float64(len(ids))
	for fi, k := range idx {
		for _, thr := range cs[fi] {
			var sl float64
			nl := 0
			for _, i := range ids {
				if rs[i].x[k] <= thr {
					sl += res[i]
					nl++
				}
			}
			nr := len(ids) - nl
			if nl < minLeaf || nr < minLeaf {
				continue
			}
			sr := sum - sl
			gain := sl*sl/float64(nl) + sr*sr/float64(nr) - sum*sum/tot
			if gain > best {
				best, bf, bt = gain, k, thr
			}
		}
	}
	if bf < 0 {
		return me
	}
	var L, R []int
	for _, i := range ids {
		if rs[i].x[bf] <= bt {
			L = append(L, i)
		} else {
			R = append(R, i)
		}
	}
	t.nodes[me].feat, t.nodes[me].thr = bf, bt
	l := build(rs, res, L, idx, cs, depth-1, minLeaf, t)
	r := build(rs, res, R, idx, cs, depth-1, minLeaf, t)
	t.nodes[me].left, t.nodes[me].right = l, r
	return me
}

func fitGBM(rs []row, idx []int, rounds, depth, minLeaf int, lr float64) *gbm {
	g := &gbm{lr: lr, idx: idx}
	for _, r := range rs {
		g.base += r.f1 / float64(len(rs))
	}
	cs := make([][]float64, len(idx))
	for fi, k := range idx {
		cs[fi] = cuts(rs, k, 16)
	}
	p := make([]float64, len(rs))
	for i := range p {
		p[i] = g.base
	}
	res := make([]float64, len(rs))
	ids := make([]int, len(rs))
	for i := range ids {
		ids[i] = i
	}
	for it := 0; it < rounds; it++ {
		for i, r := range rs {
			res[i] = r.f1 - p[i]
		}
		var t tree
		build(rs, res, ids, idx, cs, depth, minLeaf, &t)
		for i := range t.nodes {
			t.nodes[i].val *= lr
		}
		for i, r := range rs {
			p[i] += t.pred(r.x)
		}
		g.trees = append(g.trees, t)
	}
	return g
}

func (g *gbm) pred(r row) float64 {
	s := g.base
	for i := range g.trees {
		s += g.trees[i].pred(r.x)
	}
	return math.Round(min(1, max(0, s))*100) / 100
}
