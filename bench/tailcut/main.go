// Command tailcut fits the tail cut of internal/content on wcxb-dev
// half A and writes its weights as Go source (tailcut_model.go).
//
// Each half-A page's main content is cut into its top-level blocks as
// the pipeline cuts it (content.TailCuts, before the cut), and every
// boundary between two blocks is scored from the reference: the page's
// word F1 when the content ends there, against the F1 without a cut. A
// logistic model of "ending here raises the F1" is fitted over the
// boundaries (features standardised, L2 penalty, each boundary weighted
// by its F1 change), by Newton steps. At run time the content ends at
// its best-scored boundary when that score reaches the cut. The
// penalty and the cut are chosen by cross-validation on half A with
// five folds by host, maximising the mean page F1, among the settings
// whose fit on all of half A leaves readability and trafilatura-eval
// half A no lower (the guard). Half B is never read.
//
//	go run ./bench/tailcut                          # cross-validate, print the table and the chosen fit
//	go run ./bench/tailcut -out internal/content    # ... and write tailcut_model.go
//	go run ./bench/tailcut -cache /tmp/tail.gob     # reuse the pages between runs
package main

import (
	"encoding/gob"
	"flag"
	"fmt"
	"go/format"
	"hash/fnv"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// tPage is one half-A page as the trainer reads it.
type tPage struct {
	Corpus, Name, Type, Host string
	Base                     float64 // wcxb, readability: F1 without a cut
	BaseTP, BaseFP           int     // eval: snippets found without a cut
	With                     int     // eval: wanted snippets
	Bounds                   []content.TailBoundary
	Score                    []float64 // per boundary: F1 with the cut
	TP, FP                   []int     // eval, per boundary
	fold                     int
}

type options struct {
	folds int
	on    bool
	gate  string  // "" or a page type: only pages whose most likely type it is are fitted and cut
	cue   bool    // only boundaries with a structural cue are candidates
	pagew bool    // boundary weights divided by the page's boundaries
	label float64 // a boundary is labelled 1 when its gain exceeds this
	start bool    // start cuts are candidates too (one cut per page, at either end)
	best  bool    // label 1 only the boundaries within 0.01 of the page's best gain (when it exceeds -label), each page weighing 1
}

var opt = options{folds: 5, on: true}

func (o options) String() string {
	var f []string
	if !o.on {
		f = append(f, "-on=false")
	}
	if o.gate != "" {
		f = append(f, "-gate "+o.gate)
	}
	if o.cue {
		f = append(f, "-cue")
	}
	if o.pagew {
		f = append(f, "-pagew")
	}
	if o.start {
		f = append(f, "-start")
	}
	if o.best {
		f = append(f, "-best")
	}
	if o.label != 0 {
		f = append(f, fmt.Sprintf("-label %g", o.label))
	}
	if o.folds != 5 {
		f = append(f, fmt.Sprintf("-folds %d", o.folds))
	}
	return strings.Join(f, " ")
}

func main() {
	shared := flag.String("shared", "../shared/corpus", "folder of the corpora")
	out := flag.String("out", "", "write tailcut_model.go to this folder")
	cache := flag.String("cache", "", "read the half-A pages from FILE if it exists, else write them there")
	flag.IntVar(&opt.folds, "folds", 5, "cross-validation folds (by host)")
	flag.BoolVar(&opt.on, "on", true, "write the model switched on (tailCutOn)")
	flag.StringVar(&opt.gate, "gate", "", "fit and cut only pages whose most likely type is this one")
	flag.BoolVar(&opt.cue, "cue", false, "only boundaries with a structural cue (heading, landmark, cards, boilerplate name, form, table, list, links) are candidates")
	flag.BoolVar(&opt.pagew, "pagew", false, "divide each boundary's weight by its page's boundaries")
	flag.BoolVar(&opt.start, "start", false, "start cuts are candidates too (one cut per page at either end; the start features are the end features plus a start flag)")
	flag.BoolVar(&opt.best, "best", false, "label 1 the boundaries within 0.01 of the page's best gain when it exceeds -label; each page weighs 1")
	flag.Float64Var(&opt.label, "label", 0, "label a boundary 1 when its gain exceeds this")
	flag.Parse()
	pages, err := load(*shared, *cache)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	src, err := train(pages, opt, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *out != "" {
		if err := os.WriteFile(filepath.Join(*out, "tailcut_model.go"), src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func hostOf(u string) string {
	x, err := url.Parse(u)
	if err != nil {
		return u
	}
	return strings.TrimPrefix(x.Hostname(), "www.")
}

func foldOf(host string, k int) int {
	h := fnv.New32a()
	h.Write([]byte(host))
	return int(h.Sum32() % uint32(k))
}

// load reads the half-A pages of the three corpora and their boundaries.
func load(shared, cache string) ([]*tPage, error) {
	if cache != "" {
		if f, err := os.Open(cache); err == nil {
			defer f.Close()
			var ps []*tPage
			if err := gob.NewDecoder(f).Decode(&ps); err == nil {
				return ps, nil
			}
		}
	}
	all, err := corpus.LoadAll(shared)
	if err != nil {
		return nil, err
	}
	var todo []*corpus.Page
	for _, p := range all {
		if p.Half == corpus.HalfA {
			todo = append(todo, p)
		}
	}
	ps := make([]*tPage, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	var firstErr error
	var mu sync.Mutex
	for w := 0; w < min(2, runtime.NumCPU()); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t, err := sample(todo[i])
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
				ps[i] = t
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if cache != "" {
		f, err := os.Create(cache)
		if err != nil {
			return nil, err
		}
		if err := gob.NewEncoder(f).Encode(ps); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// sample is one page's boundaries and scores.
func sample(p *corpus.Page) (*tPage, error) {
	t := &tPage{Corpus: p.Corpus, Name: p.Name, Type: p.Type, Host: hostOf(p.URL), With: len(p.With)}
	if p.Corpus == corpus.Readability {
		t.Host = p.Name
	}
	body, err := p.Body()
	if err != nil {
		return nil, err
	}
	bs, err := content.TailCuts(body, p.URL, func(cut int, text string) {
		s := p.Score(text, true)
		if cut < 0 {
			t.Base, t.BaseTP, t.BaseFP = s.F1, s.TP, s.FP
			return
		}
		t.Score = append(t.Score, s.F1)
		t.TP = append(t.TP, s.TP)
		t.FP = append(t.FP, s.FP)
	})
	if err != nil {
		// Scored as the pipeline's failure: no boundary, the empty text.
		s := p.Score("", false)
		t.Base, t.BaseTP, t.BaseFP = s.F1, s.TP, s.FP
		return t, nil
	}
	t.Bounds = bs
	return t, nil
}

// setting is one point of the grid with its cross-validated result.
type setting struct {
	lambda, cut float64
	f1, base    float64
	sq          float64 // sum of squared page gains
	up, down    int
	byType      map[string]float64
	guardRead   float64 // readability half A gain of the fit on all of A
	guardEval   float64 // trafilatura-eval half A gain
	guardOK     bool
}

var lambdas = []float64{0.01, 0.1, 1, 10, 100}
var cuts = []float64{0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95}

// train cross-validates, fits the chosen setting on all of half A's
// wcxb-dev pages and returns tailcut_model.go's source.
func train(all []*tPage, o options, w io.Writer) ([]byte, error) {
	var wc, read, eval []*tPage
	nb := 0
	for _, p := range all {
		switch p.Corpus {
		case corpus.WCXB:
			p.fold = foldOf(p.Host, o.folds)
			wc = append(wc, p)
			nb += len(p.Bounds)
		case corpus.Readability:
			read = append(read, p)
		case corpus.Eval:
			eval = append(eval, p)
		}
	}
	fmt.Fprintf(w, "%d wcxb-dev pages, %d boundaries; %d readability, %d eval pages\n", len(wc), nb, len(read), len(eval))
	oracle(wc, w)
	// Out-of-fold predictions for each lambda.
	var res []setting
	for _, lam := range lambdas {
		pred := make(map[*tPage][]float64)
		for f := 0; f < o.folds; f++ {
			var tr []*tPage
			for _, p := range wc {
				if p.fold != f {
					tr = append(tr, p)
				}
			}
			wt := fit(tr, lam)
			for _, p := range wc {
				if p.fold == f {
					pred[p] = scores(p, wt)
				}
			}
		}
		full := fit(wc, lam)
		for _, c := range cuts {
			s := setting{lambda: lam, cut: c, byType: map[string]float64{}}
			count := map[string]int{}
			for _, p := range wc {
				got := applied(p, pred[p], c)
				s.f1 += got
				s.base += p.Base
				d := got - p.Base
				s.sq += d * d
				if d > 1e-9 {
					s.up++
				} else if d < -1e-9 {
					s.down++
				}
				s.byType[p.Type] += d
				count[p.Type]++
			}
			for t := range s.byType {
				s.byType[t] /= float64(count[t])
			}
			n := float64(len(wc))
			s.f1, s.base = s.f1/n, s.base/n
			s.guardRead, s.guardEval = guard(read, eval, full, c)
			s.guardOK = s.guardRead >= 0 && s.guardEval >= 0
			res = append(res, s)
		}
	}
	sort.SliceStable(res, func(i, j int) bool { return res[i].f1 > res[j].f1 })
	fmt.Fprintln(w, "L2      cut   CV F1   gain     up  down  readability A  eval A")
	for i, s := range res {
		if i >= 15 {
			break
		}
		fmt.Fprintf(w, "%-7g %.2f  %.4f  %+.4f  %3d  %3d   %+.4f        %+.4f\n", s.lambda, s.cut, s.f1, s.f1-s.base, s.up, s.down, s.guardRead, s.guardEval)
	}
	var best *setting
	for i := range res {
		if res[i].guardOK {
			best = &res[i]
			break
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no setting passes the guard")
	}
	n := float64(len(wc))
	gain := best.f1 - best.base
	se := math.Sqrt((best.sq/n - gain*gain) / n)
	fmt.Fprintf(w, "chosen: L2 %g cut %.2f: CV F1 %.4f (base %.4f, %+.4f ± %.4f), up %d down %d; readability A %+.4f, eval A %+.4f\n",
		best.lambda, best.cut, best.f1, best.base, gain, se, best.up, best.down, best.guardRead, best.guardEval)
	var ts []string
	for t := range best.byType {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	for _, t := range ts {
		fmt.Fprintf(w, "  %-14s %+.4f\n", t, best.byType[t])
	}
	wt := fit(wc, best.lambda)
	for i, name := range content.TailFeatureNames {
		fmt.Fprintf(w, "  %-60s %+.4f\n", name, wt[i])
	}
	return modelSource(wt, best, o, len(wc))
}

// oracle prints the mean F1 of the best boundary (or none) per page.
func oracle(wc []*tPage, w io.Writer) {
	base, best := 0.0, 0.0
	byType := map[string][3]float64{}
	for _, p := range wc {
		b, e := p.Base, p.Base
		for i, s := range p.Score {
			b = math.Max(b, s)
			if !p.Bounds[i].Start {
				e = math.Max(e, s)
			}
		}
		base += p.Base
		best += b
		x := byType[p.Type]
		byType[p.Type] = [3]float64{x[0] + p.Base, x[1] + e, x[2] + b}
	}
	n := float64(len(wc))
	var endOnly, startOnly float64
	for _, p := range wc {
		e, st := p.Base, p.Base
		for i, s := range p.Score {
			if p.Bounds[i].Start {
				st = math.Max(st, s)
			} else {
				e = math.Max(e, s)
			}
		}
		endOnly += e
		startOnly += st
	}
	fmt.Fprintf(w, "oracle (best boundary or none per page): end %.4f, start %.4f, either %.4f, from %.4f\n", endOnly/n, startOnly/n, best/n, base/n)
	var ts []string
	for t := range byType {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	for _, t := range ts {
		c := 0
		for _, p := range wc {
			if p.Type == t {
				c++
			}
		}
		fmt.Fprintf(w, "  %-14s %.4f -> end %.4f, either %.4f\n", t, byType[t][0]/float64(c), byType[t][1]/float64(c), byType[t][2]/float64(c))
	}
	if opt.cue || opt.gate != "" {
		best = 0
		for _, p := range wc {
			b := p.Base
			if gated(p) {
				for i, s := range p.Score {
					if candidate(p.Bounds[i]) {
						b = math.Max(b, s)
					}
				}
			}
			best += b
		}
		fmt.Fprintf(w, "oracle among the candidates: %.4f\n", best/n)
	}
}

// gated reports whether the rule applies to p.
func gated(p *tPage) bool {
	if opt.gate == "" || len(p.Bounds) == 0 {
		return true
	}
	f := p.Bounds[0].Features
	t := content.TailTypeFeature
	best := 0
	for i := range content.PageTypes {
		if f[t+i] > f[t+best] {
			best = i
		}
	}
	return string(content.PageTypes[best]) == opt.gate
}

// candidate reports whether boundary b may be chosen.
func candidate(b content.TailBoundary) bool {
	if b.Start && !opt.start {
		return false
	}
	return !opt.cue || content.TailCue(b.Features)
}

// featuresOf is b's row: its features, and with -start the same again
// for a start cut (zero for an end cut), so that each end has its own
// weights.
func featuresOf(b content.TailBoundary) []float64 {
	if !opt.start {
		return b.Features
	}
	out := make([]float64, 2*len(b.Features))
	if b.Start {
		copy(out[len(b.Features):], b.Features)
	} else {
		copy(out, b.Features)
	}
	return out
}

// scores are the model's scores of p's boundaries (-1: not a candidate).
func scores(p *tPage, wt []float64) []float64 {
	out := make([]float64, len(p.Bounds))
	for i, b := range p.Bounds {
		if !gated(p) || !candidate(b) {
			out[i] = -1
			continue
		}
		z := 0.0
		for j, x := range featuresOf(b) {
			z += wt[j] * x
		}
		out[i] = 1 / (1 + math.Exp(-z))
	}
	return out
}

// choice is the boundary the run-time rule picks with scores s and cut
// c, or -1.
func choice(s []float64, c float64) int {
	best, at := -1.0, -1
	for i, x := range s {
		if x > best {
			best, at = x, i
		}
	}
	if at < 0 || best < c {
		return -1
	}
	return at
}

// applied is p's F1 under the rule.
func applied(p *tPage, s []float64, c float64) float64 {
	if i := choice(s, c); i >= 0 {
		return p.Score[i]
	}
	return p.Base
}

// guard is the change of readability half A's mean F1 and of
// trafilatura-eval half A's F1 (summed snippets) under the fit wt at
// cut c.
func guard(read, eval []*tPage, wt []float64, c float64) (float64, float64) {
	dr := 0.0
	for _, p := range read {
		dr += applied(p, scores(p, wt), c) - p.Base
	}
	if len(read) > 0 {
		dr /= float64(len(read))
	}
	var tp0, fp0, tp1, fp1, with int
	for _, p := range eval {
		with += p.With
		tp0 += p.BaseTP
		fp0 += p.BaseFP
		if i := choice(scores(p, wt), c); i >= 0 {
			tp1 += p.TP[i]
			fp1 += p.FP[i]
		} else {
			tp1 += p.BaseTP
			fp1 += p.BaseFP
		}
	}
	return dr, evalF1(tp1, fp1, with) - evalF1(tp0, fp0, with)
}

func evalF1(tp, fp, with int) float64 {
	if tp == 0 {
		return 0
	}
	p := float64(tp) / float64(tp+fp)
	r := float64(tp) / float64(with)
	return 2 * p * r / (p + r)
}

// fit fits the weighted logistic model over ps's boundaries: label 1
// when the cut raises the page's F1, weight the size of the change
// (plus 0.001), L2 penalty lambda on the standardised features but the
// bias; the weights are returned in the features' own scale.
func fit(ps []*tPage, lambda float64) []float64 {
	d := content.TailFeatureCount
	if opt.start {
		d *= 2
	}
	var xs [][]float64
	var ys, ws []float64
	for _, p := range ps {
		if !gated(p) {
			continue
		}
		nc := 0
		top := 0.0
		for i, b := range p.Bounds {
			if candidate(b) {
				nc++
				top = math.Max(top, p.Score[i]-p.Base)
			}
		}
		for i, b := range p.Bounds {
			if !candidate(b) {
				continue
			}
			g := p.Score[i] - p.Base
			y := 0.0
			if g > opt.label {
				y = 1
			}
			xs = append(xs, featuresOf(b))
			ys = append(ys, y)
			wk := math.Abs(g) + 0.001
			if opt.pagew {
				wk /= math.Sqrt(float64(nc))
			}
			if opt.best {
				y = 0
				if top > opt.label && g >= top-0.01 {
					y = 1
				}
				wk = 1 / float64(nc)
			}
			ws = append(ws, wk)
		}
	}
	mean := make([]float64, d)
	sd := make([]float64, d)
	sw := 0.0
	for k, x := range xs {
		sw += ws[k]
		for j := range x {
			mean[j] += ws[k] * x[j]
		}
	}
	for j := range mean {
		mean[j] /= sw
	}
	for k, x := range xs {
		for j := range x {
			dx := x[j] - mean[j]
			sd[j] += ws[k] * dx * dx
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / sw)
		if sd[j] < 1e-9 || j == 0 {
			sd[j] = 0
		}
	}
	z := func(x []float64, j int) float64 {
		if j == 0 {
			return 1
		}
		if sd[j] == 0 {
			return 0
		}
		return (x[j] - mean[j]) / sd[j]
	}
	beta := make([]float64, d)
	for iter := 0; iter < 50; iter++ {
		grad := make([]float64, d)
		hess := make([][]float64, d)
		for j := range hess {
			hess[j] = make([]float64, d)
		}
		zx := make([]float64, d)
		for k, x := range xs {
			for j := 0; j < d; j++ {
				zx[j] = z(x, j)
			}
			s := 0.0
			for j := 0; j < d; j++ {
				s += beta[j] * zx[j]
			}
			pr := 1 / (1 + math.Exp(-s))
			r := ws[k] * (pr - ys[k])
			h := ws[k] * pr * (1 - pr)
			for j := 0; j < d; j++ {
				if zx[j] == 0 {
					continue
				}
				grad[j] += r * zx[j]
				for l := 0; l < d; l++ {
					hess[j][l] += h * zx[j] * zx[l]
				}
			}
		}
		for j := 1; j < d; j++ {
			grad[j] += lambda * beta[j]
			hess[j][j] += lambda
		}
		for j := 0; j < d; j++ {
			hess[j][j] += 1e-9
		}
		step := solve(hess, grad)
		maxd := 0.0
		for j := range beta {
			beta[j] -= step[j]
			maxd = math.Max(maxd, math.Abs(step[j]))
		}
		if maxd < 1e-8 {
			break
		}
	}
	// Back to the features' own scale.
	out := make([]float64, d)
	out[0] = beta[0]
	for j := 1; j < d; j++ {
		if sd[j] == 0 {
			continue
		}
		out[j] = beta[j] / sd[j]
		out[0] -= beta[j] * mean[j] / sd[j]
	}
	return out
}

// solve solves a x = b by Gaussian elimination with partial pivoting
// (a and b are copied).
func solve(a [][]float64, b []float64) []float64 {
	n := len(b)
	m := make([][]float64, n)
	for i := range a {
		m[i] = append(append([]float64(nil), a[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		if math.Abs(m[c][c]) < 1e-12 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		if math.Abs(m[r][r]) < 1e-12 {
			continue
		}
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x
}

// modelSource is tailcut_model.go.
func modelSource(wt []float64, s *setting, o options, pages int) ([]byte, error) {
	var b strings.Builder
	cmd := "go run ./bench/tailcut"
	if a := o.String(); a != "" {
		cmd += " " + a
	}
	fmt.Fprintf(&b, "// Code generated by %s -out internal/content; DO NOT EDIT.\n\n", cmd)
	fmt.Fprintf(&b, "package content\n\n")
	fmt.Fprintf(&b, "// The tail cut's model, fitted on wcxb-dev half A (%d pages): L2 %g\n", pages, s.lambda)
	fmt.Fprintf(&b, "// and cut %.2f chosen by 5-fold cross-validation by host (CV F1 %.4f\n", s.cut, s.f1)
	fmt.Fprintf(&b, "// from %.4f; readability half A %+.4f, trafilatura-eval half A %+.4f).\n\n", s.base, s.guardRead, s.guardEval)
	fmt.Fprintf(&b, "// tailCutOn switches the tail cut on.\nconst tailCutOn = %v\n\n", o.on)
	fmt.Fprintf(&b, "// tailCutMin is the score a boundary needs to end the content.\nconst tailCutMin = %.2f\n\n", s.cut)
	fmt.Fprintf(&b, "// tailWeights are the logistic weights of the tail features.\nvar tailWeights = [numTailFeatures]float64{\n")
	for i, name := range content.TailFeatureNames {
		fmt.Fprintf(&b, "\t%v, // %s\n", roundW(wt[i]), name)
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source([]byte(b.String()))
}

// roundW writes a weight with 6 significant digits (the file stays the
// same from run to run on one machine and readable).
func roundW(x float64) string {
	return fmt.Sprintf("%.6g", x)
}
