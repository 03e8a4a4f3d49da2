package main

import (
	"fmt"
	"math"
	"sort"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

type pageCands struct {
	p     *corpus.Page
	cs    []content.Candidate
	f1    []float64
	probs []float64
}

var ruleVariant = 0

// choose returns the index of the candidate the rule takes, or -1.
func choose(pc *pageCands) int {
	pr := pc.probs
	arg := 0
	for i := range pr {
		if pr[i] > pr[arg] {
			arg = i
		}
	}
	if arg != 3 || pr[3] < 0.4 {
		return -1
	}
	if ruleVariant >= 10 && ruleVariant < 20 {
		margin := float64(ruleVariant-10) / 100
		cur, best := -1, -1
		for i, c := range pc.cs {
			if c.Current {
				cur = i
			}
		}
		for i, c := range pc.cs {
			if best < 0 || c.Score > pc.cs[best].Score {
				best = i
			}
		}
		if cur < 0 || best == cur || pc.cs[best].Score < pc.cs[cur].Score+margin || !pc.cs[0].Selectable {
			return -1
		}
		return best
	}
	cur := -1
	art := -1
	for i, c := range pc.cs {
		if c.Chosen {
			cur = i
		}
		if c.Kind == "article" {
			art = i
		}
	}
	_ = art
	best, bestW := -1, math.Inf(1)
	for i, c := range pc.cs {
		if c.Kind == "items" || c.Kind == "forum" {
			continue
		}
		f := c.Features
		words := math.Expm1(f[1])
		hasH1 := f[8] > 0
		prices := math.Expm1(f[9])
		covered := f[5]
		ok := hasH1 && covered >= 0.8
		switch ruleVariant {
		case 1:
			ok = ok && prices >= 1
		case 2:
			ok = ok && prices >= 1 && f[3] < 0.5
		}
		if ok && words < bestW {
			best, bestW = i, words
		}
	}
	if best < 0 {
		return -1
	}
	_ = cur
	return best
}

func dumpFeat(pages []*pageCands) {
	for _, pc := range pages {
		if pc.p.Type != "product" {
			continue
		}
		cur := -1
		for i, c := range pc.cs {
			if c.Chosen {
				cur = i
			}
		}
		line := fmt.Sprintf("%s p%.2f cur=%s %.2f |", pc.p.Name, pc.probs[3], pc.cs[cur].Kind, pc.f1[cur])
		for i, c := range pc.cs {
			if c.Kind == "forum" || c.Kind == "items" {
				continue
			}
			f := c.Features
			line += fmt.Sprintf(" %s %.2f w%.0f h1%.0f pr%.0f ld%.2f cov%.2f xs%.2f xsh%.2f xl%.2f drop%.2f |", c.Kind, pc.f1[i], math.Expm1(f[1]), f[8], math.Expm1(f[9]), f[3], f[5], f[16], f[17], f[18], f[20])
		}
		fmt.Println(line)
	}
}

func runRule(pages []*pageCands) {
	if ruleVariant == 99 {
		dumpFeat(pages)
		return
	}
	type agg struct{ n, up, down int; base, rule, oracle float64 }
	by := map[string]*agg{}
	for _, pc := range pages {
		a := by[pc.p.Type]
		if a == nil {
			a = &agg{}
			by[pc.p.Type] = a
		}
		cur := -1
		or := 0.0
		for i, c := range pc.cs {
			if c.Chosen {
				cur = i
			}
			or = math.Max(or, pc.f1[i])
		}
		if cur < 0 {
			continue
		}
		a.n++
		a.base += pc.f1[cur]
		a.oracle += or
		k := choose(pc)
		if k < 0 {
			k = cur
		}
		a.rule += pc.f1[k]
		if d := pc.f1[k] - pc.f1[cur]; math.Abs(d) > 0.0005 {
			if d > 0 {
				a.up++
			} else {
				a.down++
			}
			if *verbose {
				fmt.Printf("%s %s %s->%s %+.3f\n", pc.p.Name, pc.p.Type, pc.cs[cur].Kind, pc.cs[k].Kind, d)
			}
		}
	}
	var ts []string
	for t := range by {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	for _, t := range ts {
		a := by[t]
		fmt.Printf("%-14s n %3d base %.4f rule %.4f (%+.4f) up %d down %d oracle %.4f\n", t, a.n, a.base/float64(a.n), a.rule/float64(a.n), (a.rule-a.base)/float64(a.n), a.up, a.down, a.oracle/float64(a.n))
	}
}
