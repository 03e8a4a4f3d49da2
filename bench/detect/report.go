package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"webacq/internal/monitor/detect"
)

// ok tells whether the monitor did what the mutation's class asks:
// noise raises no alert (it relocates and is not material), a material
// change is relocated and material, a restructure is relocated, a
// removal fails to relocate.
//
// With keywords, a removal must alert: the region lost, the keyword gone
// (an error) or a material change (the keyword blocks removed). In the
// keyword class, the keyword gone from the page must be an error and
// every other change material.
func (o outcome) ok() bool {
	relocated := !o.lost && !o.gone
	switch o.class {
	case classNoise:
		return relocated && !o.material
	case classMaterial, classPageType:
		return relocated && o.material
	case classRestructure:
		return relocated
	case classRemoval:
		if o.keywords {
			return !relocated || o.material
		}
		return !relocated
	case classKeyword:
		if o.mutation == mutOnlyRemoved {
			return o.gone
		}
		return relocated && o.material
	}
	return false
}

// tally counts outcomes of one kind.
type tally struct {
	n, skipped, ok, relocated, changed, material, pdf int
	scores                                            []float64
}

func (t *tally) add(o outcome) {
	if o.skipped != "" {
		t.skipped++
		return
	}
	t.n++
	t.scores = append(t.scores, o.score)
	if o.ok() {
		t.ok++
	}
	if !o.lost && !o.gone {
		t.relocated++
	}
	if o.changed {
		t.changed++
	}
	if o.material {
		t.material++
	}
	if o.pdf {
		t.pdf++
	}
}

func pct(a, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(n))
}

func report(w io.Writer, results []pageResult, elapsed time.Duration, verbose bool) {
	type key struct {
		class, mutation string
		keywords        bool
	}
	var order []key
	byKey := make(map[key]*tally)
	byClass := make(map[key]*tally) // mutation ""
	var errs []string
	type gkey struct{ group, class string }
	byGroup := make(map[gkey]*tally)
	var groups []string
	var anchors, anchorsKw, relocs, compares []time.Duration
	pages := 0
	for _, r := range results {
		if r.err != "" {
			errs = append(errs, r.name+": "+r.err)
			continue
		}
		pages++
		if !slices.Contains(groups, r.group) {
			groups = append(groups, r.group)
		}
		anchors = append(anchors, r.anchor)
		if r.keyword != "" {
			anchorsKw = append(anchorsKw, r.anchorKw)
		}
		for _, o := range r.outcomes {
			k := key{o.class, o.mutation, o.keywords}
			if byKey[k] == nil {
				byKey[k] = &tally{}
				order = append(order, k)
			}
			byKey[k].add(o)
			ck := key{o.class, "", o.keywords}
			if byClass[ck] == nil {
				byClass[ck] = &tally{}
			}
			byClass[ck].add(o)
			gk := gkey{r.group, o.class}
			if byGroup[gk] == nil {
				byGroup[gk] = &tally{}
			}
			byGroup[gk].add(o)
			if o.skipped == "" {
				relocs = append(relocs, o.relocate)
				compares = append(compares, o.compare)
			}
			if verbose && o.skipped == "" && o.ok() && (o.class == classRemoval && o.score >= 25 || o.class == classRestructure && o.score < 70) {
				fmt.Fprintf(w, "NEAR %-60s %-12s %-24s kw=%-5v score %5.1f\n", r.name, o.class, o.mutation, o.keywords, o.score)
			}
			if verbose && o.skipped == "" && (o.compare > 100*time.Millisecond || o.relocate > 200*time.Millisecond) {
				fmt.Fprintf(w, "SLOW %-60s %-12s %-24s kw=%-5v relocate %v compare %v\n", r.name, o.class, o.mutation, o.keywords, o.relocate, o.compare)
			}
			if verbose && o.skipped == "" && o.ok() && o.class == classRestructure && o.material {
				fmt.Fprintf(w, "ALERT %-60s %-12s %-24s kw=%-5v score %5.1f%s\n", r.name, o.class, o.mutation, o.keywords, o.score, briefSignals(o.signals))
			}
			if verbose && o.skipped == "" && !o.ok() {
				fmt.Fprintf(w, "MISS %-60s %-12s %-24s kw=%-5v score %5.1f changed %v material %v%s\n",
					r.name, o.class, o.mutation, o.keywords, o.score, o.changed, o.material, briefSignals(o.signals))
			}
		}
	}
	slices.SortStableFunc(order, func(a, b key) int { return classRank(a.class) - classRank(b.class) })

	fmt.Fprintf(w, "\nDetection benchmark: %d pages (%d skipped), %d checks, threshold %.0f, %s\n\n",
		pages, len(errs), len(relocs), detect.RelocateThreshold, elapsed.Round(time.Second))
	fmt.Fprintf(w, "%-12s %-24s %-8s %6s %6s %9s %9s %9s %9s %9s  %s\n",
		"class", "mutation", "keywords", "n", "n/a", "relocated", "changed", "material", "pdf", "expected", "score min/p5/median/p95/max")
	for _, k := range order {
		t := byKey[k]
		kw := "no"
		if k.keywords {
			kw = "yes"
		}
		pdf := "-"
		if strings.HasPrefix(k.mutation, "new item") {
			pdf = pct(t.pdf, t.n)
		}
		fmt.Fprintf(w, "%-12s %-24s %-8s %6d %6d %9s %9s %9s %9s %9s  %s\n", k.class, k.mutation, kw, t.n, t.skipped,
			pct(t.relocated, t.n), pct(t.changed, t.n), pct(t.material, t.n), pdf, pct(t.ok, t.n), quantiles(t.scores))
	}

	classes := []string{classNoise, classMaterial, classRestructure, classRemoval, classKeyword, classPageType}
	fmt.Fprintf(w, "\nRight per page group (corpus, or wcxb-dev page type), both monitors: right / n\n%-14s %6s", "group", "pages")
	for _, c := range classes {
		fmt.Fprintf(w, " %20s", c)
	}
	fmt.Fprintln(w)
	for _, g := range groups {
		n := 0
		for _, r := range results {
			if r.group == g && r.err == "" {
				n++
			}
		}
		fmt.Fprintf(w, "%-14s %6d", g, n)
		for _, c := range classes {
			cell := "-"
			if t := byGroup[gkey{g, c}]; t != nil && t.n > 0 {
				cell = fmt.Sprintf("%d/%d %s", t.ok, t.n, pct(t.ok, t.n))
			}
			fmt.Fprintf(w, " %20s", cell)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "\nSummary (targets in brackets)\n")
	line := func(label string, a, n int, target string) {
		fmt.Fprintf(w, "  %-52s %6d / %-6d %7s   [%s]\n", label, a, n, pct(a, n), target)
	}
	for _, kw := range []bool{true, false} {
		t := byClass[key{classNoise, "", kw}]
		if t == nil {
			continue
		}
		label, target := "false alerts on noise, with keywords", "0"
		if !kw {
			label, target = "false alerts on noise, without keywords", "< 1%"
		}
		line(label, t.n-t.ok, t.n, target)
		fmt.Fprintf(w, "  %-52s %6d relocation failures, %d material\n", "", t.n-t.relocated, t.material)
	}
	for _, kw := range []bool{true, false} {
		if t := byClass[key{classMaterial, "", kw}]; t != nil {
			label := "material changes found, with keywords"
			if !kw {
				label = "material changes found, without keywords"
			}
			line(label, t.ok, t.n, "100%")
		}
	}
	var rs, rm tally
	for _, kw := range []bool{true, false} {
		if t := byClass[key{classRestructure, "", kw}]; t != nil {
			rs.n, rs.ok, rs.material = rs.n+t.n, rs.ok+t.ok, rs.material+t.material
		}
		if t := byClass[key{classRemoval, "", kw}]; t != nil {
			rm.n, rm.ok = rm.n+t.n, rm.ok+t.ok
		}
	}
	line("restructures relocated", rs.ok, rs.n, "100%")
	fmt.Fprintf(w, "  %-52s %6d of them raised a material change\n", "", rs.material)
	line("removals that failed relocation", rm.ok, rm.n, "100%")

	fmt.Fprintf(w, "\nTime per page: Anchor without keywords %s, with a keyword %s; per check: Relocate %s, Compare %s\n",
		stats(anchors), stats(anchorsKw), stats(relocs), stats(compares))
	if len(errs) > 0 {
		fmt.Fprintf(w, "\nSkipped pages:\n")
		for _, e := range errs {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

func classRank(c string) int {
	return slices.Index([]string{classNoise, classMaterial, classRestructure, classRemoval, classKeyword, classPageType}, c)
}

// stats formats the mean, 95th percentile and maximum of ds.
func stats(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	r := func(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("mean %s / p95 %s / max %s", r(sum/time.Duration(len(s))), r(s[len(s)*95/100]), r(s[len(s)-1]))
}

func briefSignals(ss []detect.Signal) string {
	var b strings.Builder
	for i, s := range ss {
		if i == 3 {
			fmt.Fprintf(&b, " …(%d)", len(ss))
			break
		}
		str := func(p *string) string {
			if p == nil {
				return "nil"
			}
			v := *p
			if len(v) > 70 {
				v = v[:70] + "…"
			}
			return fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, "\n      %s: %s → %s", s.Field, str(s.From), str(s.To))
	}
	return b.String()
}

// quantiles formats the minimum, 5th percentile, median, 95th percentile
// and maximum of xs.
func quantiles(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	return fmt.Sprintf("%.0f/%.0f/%.0f/%.0f/%.0f", s[0], q(0.05), q(0.5), q(0.95), s[len(s)-1])
}
