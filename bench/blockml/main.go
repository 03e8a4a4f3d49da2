// Command blockml fits the block filter of internal/content on wcxb-dev
// half A and writes its weights as Go source (blocks_model.go).
//
// Each half-A page's main content is cut into leaf blocks as the
// pipeline cuts it (content.Blocks, before the filter), and each block is
// labelled from the reference: kept when most of its 3-word shingles
// (its words, under 3 words) are in ground_truth.main_content, each
// reference shingle matched once. A logistic model of the label is fitted
// (features standardised, L2 penalty, blocks weighted by √words + 1) by
// Newton steps. The penalty, the cut under which a block is dropped and
// the guard (the largest share of a page's block words the filter may
// drop) are chosen by cross-validation on half A with folds by host (a
// site's template stays in one fold), maximising the mean page word F1
// of the folds' pages: the text the pipeline gives, less the dropped
// blocks' words (the score is a multiset of words, so order does not
// matter). Half B is never read.
//
//	go run ./bench/blockml                          # cross-validate, print the table and the chosen fit
//	go run ./bench/blockml -out internal/content    # ... and write blocks_model.go
//	go run ./bench/blockml -nopos                   # without the position features
//	go run ./bench/blockml -cache /tmp/blocks.gob   # reuse the blocks between runs
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
	"sort"
	"strings"

	"webacq/bench/content/corpus"
	"webacq/internal/content"
)

// tPage is one half-A page as the trainer reads it.
type tPage struct {
	Name, Type, Host string
	Text             string
	Expected         string
	Blocks           []content.Block
}

// sPage is a page ready for scoring: words as ids.
type sPage struct {
	*tPage
	fold   int
	ref    []int32 // reference count per word id
	full   []int32 // count per word id in the pipeline's text
	blocks [][]int32
	labels []float64
	nref   int
	nfull  int
	nblock int // words of the blocks
	base   float64
}

// options are the trainer's choices; the committed model records them.
type options struct {
	nopos    bool   // leave out the position features
	norepeat bool   // leave out "repeats an earlier block"
	captions bool   // never drop a caption (blockKeepCaptions)
	soft     bool   // fit the share of the block's shingles, not share >= 0.5
	weight   string // block weights: sqrt, page or mix
	folds    int
	on       bool // blockFilterOn
}

// opt is the run's options (flags).
var opt = options{weight: "sqrt", folds: 5, on: true}

func (o options) String() string {
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{{o.nopos, "-nopos"}, {o.norepeat, "-norepeat"}, {o.captions, "-captions"}, {o.soft, "-soft"}, {!o.on, "-on=false"}} {
		if x.on {
			f = append(f, x.name)
		}
	}
	if o.weight != "sqrt" {
		f = append(f, "-weight "+o.weight)
	}
	if o.folds != 5 {
		f = append(f, fmt.Sprintf("-folds %d", o.folds))
	}
	return strings.Join(f, " ")
}

func main() {
	dir := flag.String("wcxb", "../shared/corpus/wcxb-dev", "folder of wcxb-dev")
	out := flag.String("out", "", "write blocks_model.go to this folder")
	cache := flag.String("cache", "", "read the half-A blocks from FILE if it exists, else write them there")
	flag.BoolVar(&opt.nopos, "nopos", false, "leave out the position features")
	flag.IntVar(&opt.folds, "folds", 5, "cross-validation folds (by host)")
	flag.BoolVar(&opt.norepeat, "norepeat", false, "leave out the feature of a block repeating an earlier one (its product with p(forum) stays)")
	flag.BoolVar(&opt.captions, "captions", false, "never drop a caption or a block inside a <figure> (blockKeepCaptions)")
	flag.BoolVar(&opt.soft, "soft", false, "fit the share of the block's shingles in the reference, not share >= 0.5")
	flag.StringVar(&opt.weight, "weight", "sqrt", "block weights: sqrt (√words + 1), page (words / the page's block words), mix")
	flag.BoolVar(&opt.on, "on", true, "write the model switched on (blockFilterOn)")
	model := flag.String("model", "logistic", "logistic or gbdt (gbdt: cross-validation only)")
	rate := flag.Float64("rate", 0.1, "gbdt: shrinkage")
	pertype := flag.Bool("pertype", false, "compare one cut with a cut per page type (L2 0.001, guard 0.5) and exit")
	showOracle := flag.Bool("oracle", false, "print the F1 of dropping exactly the blocks labelled out, and exit")
	flag.Parse()

	pages, err := load(*dir, *cache)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ps := prepare(pages, opt.folds)
	if *showOracle {
		oracle(ps)
		return
	}
	mask := opt.mask()
	if *pertype {
		perTypeCuts(ps, opt.folds, mask, 0.001, 0.5)
		return
	}
	if *model == "gbdt" {
		gbCrossValidate(ps, opt.folds, mask, *rate)
		return
	}
	src, err := train(ps, opt, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *out != "" {
		if err := os.WriteFile(filepath.Join(*out, "blocks_model.go"), src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// mask is which features the fit uses.
func (o options) mask() []bool {
	mask := make([]bool, content.BlockFeatureCount)
	for i := range mask {
		mask[i] = true
	}
	if o.norepeat {
		mask[content.BlockRepeatFeature] = false
	}
	if o.nopos {
		for _, i := range content.BlockPositionFeatures {
			mask[i] = false
		}
	}
	return mask
}

// train cross-validates, fits the chosen setting on all of ps and
// returns blocks_model.go's source; the table goes to w.
func train(ps []*sPage, o options, w io.Writer) ([]byte, error) {
	mask := o.mask()
	nb := 0
	for _, p := range ps {
		nb += len(p.Blocks)
	}
	fmt.Fprintf(w, "%d pages, %d blocks\n", len(ps), nb)
	res := crossValidate(ps, o.folds, mask, w)
	best := res[0]
	n := float64(len(ps))
	gain := best.f1 - best.base
	se := math.Sqrt((best.sq/n - gain*gain) / n)
	fmt.Fprintf(w, "chosen: L2 %g cut %.2f guard %.2f: CV F1 %.4f (base %.4f, %+.4f ± %.4f), up %d down %d\n",
		best.lambda, best.cut, best.guard, best.f1, best.base, gain, se, best.up, best.down)
	var ts []string
	for t := range best.byType {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	for _, t := range ts {
		fmt.Fprintf(w, "  %-14s %+.4f\n", t, best.byType[t])
	}
	wt := fit(ps, best.lambda, mask)
	for i, n := range content.BlockFeatureNames {
		fmt.Fprintf(w, "  %-40s %+.4f\n", n, wt[i])
	}
	return modelSource(wt, best, o, len(ps))
}

// labelOf is the fit's target for a block whose shingles are share l
// in the reference.
func labelOf(l float64) float64 {
	if opt.soft {
		return l
	}
	if l >= 0.5 {
		return 1
	}
	return 0
}

// weightOf is block bi's weight in the fit.
func weightOf(p *sPage, bi int) float64 {
	n := float64(len(p.blocks[bi]))
	switch opt.weight {
	case "page":
		return 100 * n / float64(max(p.nblock, 1))
	case "mix":
		return 100 * (math.Sqrt(n) + 1) / (math.Sqrt(float64(max(p.nblock, 1))) + 1)
	}
	return math.Sqrt(n) + 1
}

func hostOf(u string) string {
	x, err := url.Parse(u)
	if err != nil {
		return u
	}
	return strings.TrimPrefix(x.Hostname(), "www.")
}

func load(dir, cache string) ([]*tPage, error) {
	if cache != "" {
		if f, err := os.Open(cache); err == nil {
			defer f.Close()
			var ps []*tPage
			if err := gob.NewDecoder(f).Decode(&ps); err == nil {
				return ps, nil
			}
		}
	}
	all, err := corpus.LoadWCXB(dir)
	if err != nil {
		return nil, err
	}
	var ps []*tPage
	for _, p := range all {
		if p.Half != corpus.HalfA {
			continue
		}
		body, err := p.Body()
		if err != nil {
			return nil, err
		}
		s, err := content.Blocks(body, p.URL)
		if err != nil {
			// Scored as the pipeline's failure would be: no blocks.
			s = content.BlockSample{}
		}
		ps = append(ps, &tPage{Name: p.Name, Type: p.Type, Host: hostOf(p.URL), Text: s.Text, Expected: p.Expected, Blocks: s.Blocks})
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

func foldOf(host string, k int) int {
	h := fnv.New32a()
	h.Write([]byte(host))
	return int(h.Sum32() % uint32(k))
}

// prepare turns pages into word-id counts and labels.
func prepare(pages []*tPage, k int) []*sPage {
	var out []*sPage
	for _, p := range pages {
		ids := map[string]int32{}
		id := func(w string) int32 {
			if i, ok := ids[w]; ok {
				return i
			}
			i := int32(len(ids))
			ids[w] = i
			return i
		}
		rw := corpus.Words(p.Expected)
		fw := corpus.Words(p.Text)
		s := &sPage{tPage: p, fold: foldOf(p.Host, k), nref: len(rw), nfull: len(fw)}
		var refIDs, fullIDs []int32
		for _, w := range rw {
			refIDs = append(refIDs, id(w))
		}
		for _, w := range fw {
			fullIDs = append(fullIDs, id(w))
		}
		var blockWords [][]string
		for _, b := range p.Blocks {
			ws := corpus.Words(b.Text)
			blockWords = append(blockWords, ws)
			var bi []int32
			for _, w := range ws {
				bi = append(bi, id(w))
			}
			s.blocks = append(s.blocks, bi)
			s.nblock += len(bi)
		}
		s.ref = make([]int32, len(ids))
		s.full = make([]int32, len(ids))
		for _, i := range refIDs {
			s.ref[i]++
		}
		for _, i := range fullIDs {
			s.full[i]++
		}
		// Labels: the share of the block's 3-shingles (words, under 3
		// words) found in the reference, each reference shingle once.
		tri := map[string]int{}
		for i := 0; i+3 <= len(rw); i++ {
			tri[strings.Join(rw[i:i+3], " ")]++
		}
		uni := map[string]int{}
		for _, w := range rw {
			uni[w]++
		}
		for _, ws := range blockWords {
			lab := 0.0
			if len(ws) >= 3 {
				in := 0
				for i := 0; i+3 <= len(ws); i++ {
					key := strings.Join(ws[i:i+3], " ")
					if tri[key] > 0 {
						tri[key]--
						in++
					}
				}
				lab = float64(in) / float64(len(ws)-2)
			} else if len(ws) > 0 {
				in := 0
				for _, w := range ws {
					if uni[w] > 0 {
						uni[w]--
						in++
					}
				}
				lab = float64(in) / float64(len(ws))
			}
			s.labels = append(s.labels, lab)
		}
		s.base = s.f1(nil)
		out = append(out, s)
	}
	return out
}

// f1 is the page's word F1 when the blocks marked in drop are removed
// from the pipeline's text.
func (s *sPage) f1(drop []bool) float64 {
	ours := s.nfull
	overlap := 0
	cnt := s.full
	if drop != nil {
		cnt = append([]int32(nil), s.full...)
		for bi, d := range drop {
			if !d {
				continue
			}
			for _, w := range s.blocks[bi] {
				if cnt[w] > 0 {
					cnt[w]--
					ours--
				}
			}
		}
	}
	for i, c := range cnt {
		overlap += int(min(c, s.ref[i]))
	}
	if ours == 0 && s.nref == 0 {
		return 1
	}
	if ours == 0 || s.nref == 0 || overlap == 0 {
		return 0
	}
	p := float64(overlap) / float64(ours)
	r := float64(overlap) / float64(s.nref)
	return 2 * p * r / (p + r)
}

// fit fits the logistic model on ps with L2 penalty lambda on the
// standardised features (not the bias), features outside mask left
// out, and returns the weights in the features' own scale.
func fit(ps []*sPage, lambda float64, mask []bool) []float64 {
	d := content.BlockFeatureCount
	// Standardise.
	mean := make([]float64, d)
	sq := make([]float64, d)
	n := 0.0
	for _, p := range ps {
		for _, b := range p.Blocks {
			for i, x := range b.Features {
				mean[i] += x
				sq[i] += x * x
			}
			n++
		}
	}
	scale := make([]float64, d)
	for i := range mean {
		mean[i] /= n
		v := sq[i]/n - mean[i]*mean[i]
		scale[i] = math.Sqrt(math.Max(v, 0))
		if scale[i] < 1e-9 || i == 0 || !mask[i] {
			scale[i] = 0
		}
	}
	std := func(x []float64, z []float64) {
		z[0] = 1
		for i := 1; i < d; i++ {
			if scale[i] == 0 {
				z[i] = 0
			} else {
				z[i] = (x[i] - mean[i]) / scale[i]
			}
		}
	}
	w := make([]float64, d)
	z := make([]float64, d)
	for it := 0; it < 40; it++ {
		g := make([]float64, d)
		H := make([][]float64, d)
		for i := range H {
			H[i] = make([]float64, d)
		}
		tw := 0.0
		for _, p := range ps {
			for bi, b := range p.Blocks {
				std(b.Features, z)
				y := labelOf(p.labels[bi])
				s := 0.0
				for i := range z {
					s += w[i] * z[i]
				}
				pr := 1 / (1 + math.Exp(-s))
				wt := weightOf(p, bi)
				tw += wt
				for i := range z {
					if z[i] == 0 {
						continue
					}
					g[i] += wt * (pr - y) * z[i]
					h := wt * pr * (1 - pr) * z[i]
					for j := i; j < d; j++ {
						H[i][j] += h * z[j]
					}
				}
			}
		}
		for i := range g {
			for j := 0; j < i; j++ {
				H[i][j] = H[j][i]
			}
		}
		for i := range g {
			g[i] /= tw
			for j := range H[i] {
				H[i][j] /= tw
			}
			if i > 0 {
				g[i] += lambda * w[i]
				H[i][i] += lambda
			}
			H[i][i] += 1e-9
		}
		step := solve(H, g)
		mx := 0.0
		for i := range w {
			w[i] -= step[i]
			mx = math.Max(mx, math.Abs(step[i]))
		}
		if mx < 1e-8 {
			break
		}
	}
	// Back to the features' own scale.
	raw := make([]float64, d)
	raw[0] = w[0]
	for i := 1; i < d; i++ {
		if scale[i] == 0 {
			continue
		}
		raw[i] = w[i] / scale[i]
		raw[0] -= w[i] * mean[i] / scale[i]
	}
	return raw
}

func solve(A [][]float64, b []float64) []float64 {
	n := len(b)
	M := make([][]float64, n)
	for i := range M {
		M[i] = append(append([]float64(nil), A[i]...), b[i])
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(M[r][c]) > math.Abs(M[p][c]) {
				p = r
			}
		}
		M[c], M[p] = M[p], M[c]
		if math.Abs(M[c][c]) < 1e-12 {
			continue
		}
		for r := 0; r < n; r++ {
			if r == c {
				continue
			}
			f := M[r][c] / M[c][c]
			for k := c; k <= n; k++ {
				M[r][k] -= f * M[c][k]
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		if math.Abs(M[i][i]) > 1e-12 {
			x[i] = M[i][n] / M[i][i]
		}
	}
	return x
}

func score(w, x []float64) float64 {
	z := 0.0
	for i := range x {
		z += w[i] * x[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// drops is which blocks the model drops on p at cut, or nil when none
// or when they hold more than guard of the block words (as blockFilter).
func drops(p *sPage, w []float64, cut, guard float64) []bool {
	total, gone := 0, 0
	var d []bool
	for bi, b := range p.Blocks {
		total += len(p.blocks[bi])
		if !(opt.captions && b.Caption) && score(w, b.Features) < cut {
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

type result struct {
	lambda, cut, guard float64
	f1, base           float64
	sq                 float64 // sum of squared per-page changes
	up, down           int
	byType             map[string]float64
}

var (
	lambdas = []float64{0.001, 0.01, 0.03, 0.1, 0.3, 1}
	cuts    = []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5}
	guards  = []float64{0.1, 0.2, 0.3, 0.5, 1}
)

func crossValidate(ps []*sPage, k int, mask []bool, w io.Writer) []result {
	var rs []result
	base := 0.0
	for _, p := range ps {
		base += p.base
	}
	base /= float64(len(ps))
	for _, lam := range lambdas {
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
		for _, cut := range cuts {
			for _, g := range guards {
				r := result{lambda: lam, cut: cut, guard: g, base: base, byType: map[string]float64{}}
				nType := map[string]int{}
				for _, p := range ps {
					f1 := p.base
					if d := drops(p, ws[p.fold], cut, g); d != nil {
						f1 = p.f1(d)
					}
					r.f1 += f1
					r.sq += (f1 - p.base) * (f1 - p.base)
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
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].f1 > rs[j].f1 })
	for i, r := range rs {
		if i >= 25 {
			break
		}
		printResult(w, fmt.Sprintf("L2 %-5g", r.lambda), r)
	}
	return rs
}

func printResult(w io.Writer, head string, r result) {
	var ts []string
	for t := range r.byType {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	var parts []string
	for _, t := range ts {
		parts = append(parts, fmt.Sprintf("%s %+.4f", t[:4], r.byType[t]))
	}
	fmt.Fprintf(w, "%s cut %.2f guard %.2f  CV F1 %.4f (%+.4f) up %3d down %3d  %s\n", head, r.cut, r.guard, r.f1, r.f1-r.base, r.up, r.down, strings.Join(parts, " "))
}

func fmtDepth(r gbResult) string { return fmt.Sprintf("depth %d trees %3d", r.depth, r.trees) }

func modelSource(w []float64, r result, o options, pages int) ([]byte, error) {
	var b strings.Builder
	b.WriteString("// Code generated by go run ./bench/blockml; DO NOT EDIT.\n\npackage content\n\n")
	fmt.Fprintf(&b, "// The block filter's weights, fitted on wcxb-dev half A (%d pages):\n", pages)
	fmt.Fprintf(&b, "// go run ./bench/blockml %s -out internal/content\n", o)
	fmt.Fprintf(&b, "// L2 %g, cut and guard chosen by cross-validation on A with folds by\n", r.lambda)
	fmt.Fprintf(&b, "// host (page word F1 %.4f against %.4f unfiltered).\n\n", r.f1, r.base)
	fmt.Fprintf(&b, "const blockFilterOn = %v\n\n", o.on)
	fmt.Fprintf(&b, "const blockKeepCaptions = %v\n\n", o.captions)
	fmt.Fprintf(&b, "const blockCut = %g\n\nconst blockGuard = %g\n\n", r.cut, r.guard)
	b.WriteString("var blockWeights = [numBlockFeatures]float64{\n")
	for i, n := range content.BlockFeatureNames {
		fmt.Fprintf(&b, "\t%.6f, // %s\n", w[i], n)
	}
	b.WriteString("}\n")
	return format.Source([]byte(b.String()))
}
