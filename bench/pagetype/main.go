// Command pagetype trains and evaluates the page-type classifier and the
// confidence model of internal/content on the labelled pages of
// ../shared/corpus/wcxb-dev.
//
// Pages are split by the FNV-1a 32 hash of their name (NNNN): even is
// half A (training), odd is half B (held out). Without flags it reports,
// for the weights compiled in, the classifier's accuracy and confusion on
// each half, how confidence ranks the per-page F1, and the F1 per type.
//
//	go run ./bench/pagetype                    # evaluate what is compiled in
//	go run ./bench/pagetype -train types       # fit the classifier on A, write pagetype_model.go
//	go run ./bench/pagetype -train confidence  # fit confidence on A, write confidence_model.go
//
// Train types first: confidence reads the classifier's probabilities.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"webacq/bench/internal/rankstat"
	"webacq/internal/content"
	"webacq/internal/fetch"
)

type page struct {
	name  string
	url   string
	label int // index into content.PageTypes
	truth string
	html  []byte
	halfA bool

	doc   *content.Document
	feats []float64 // the classifier's input (from doc, or alone with -fast)
	f1    float64
	pred  int
}

func main() {
	dir := flag.String("corpus", "../shared/corpus/wcxb-dev", "wcxb-dev directory")
	train := flag.String("train", "", "fit a model on half A and write its Go source: types or confidence")
	out := flag.String("out", "internal/content", "directory of the generated model source")
	worst := flag.Int("worst", 0, "list the N pages of half A with the lowest F1 per type")
	only := flag.String("only", "", "score only the pages labelled with this type (quick looks; not with -train)")
	dump := flag.String("dump", "", "write each page's main-content text to DIR/NNNN.txt")
	confTSV := flag.String("conftsv", "", "write each page's confidence inputs, F1 and half to FILE (tab-separated; experiments, see bench/confcv)")
	flag.BoolVar(&typeCols, "conftypes", false, "with -conftsv: add the page-type classifier's inputs as columns t_NAME")
	sel := flag.Bool("select", false, "score every candidate main content (headroom per type on half A, the selector on half A; both halves with -heldout)")
	cache := flag.String("cache", "", "with -select or -train select: read the scored candidates from FILE if it exists, else write them there (quicker refits while the features stay the same)")
	switches := flag.Bool("switches", false, "with -select: list the half-A pages on which the selector switches, with the candidate's features")
	fast := flag.Bool("fast", false, "compute only the classifier's features (no extraction): -train types, or half A's confusion")
	flag.BoolVar(&misread, "misread", false, "with -train types: list the half-A pages the cross-validated classifier misreads")
	onePage := flag.String("page", "", "with -fast: print one half-A page's type probabilities (NNNN)")
	drop := flag.String("drop", "", "with -fast: comma-separated features to zero before fitting (ablation; not for a model to keep)")
	flag.StringVar(&selectFixed, "setting", "", "with -train select: fit this setting (gate,prose,lambda,shared,margin, e.g. 0.4,0,0.1,false,0.05) whatever the cross-validation prefers (experiments)")
	prior := flag.String("prior", "", "with -train select: start from the weights of this select_model.go and shrink toward them (experiments)")
	selTypes := flag.Bool("selecttypes", true, "with -train select: the selector reads the p(type) features (false: zeroed, their weights 0)")
	crossFitted := flag.Bool("crossfit", false, "with -train select: fit the selector on out-of-fold type probabilities of half A's wcxb-dev pages (default: the compiled classifier's, read in sample; experiments)")
	flag.IntVar(&selectBags, "bags", 1, "with -train select: the selector's weights are the mean of N fits on bootstrap resamples of the pages (1: one fit, main's)")
	flag.Float64Var(&selectFitGate, "fitgate", 0, "with -train select: fit on the half-A pages under this gate when it is above the selector's (0: the selector's gate, main's)")
	flag.Int64Var(&selectSeed, "seed", 1, "with -train select -bags N: the resamples' seed")
	flag.UintVar(&selectFoldBit, "foldbit", 1, "with -train select: the bit of the name's hash that splits half A into the two folds (1: main's; not 0)")
	flag.StringVar(&selectChoices, "choices", "", "with -train select: write every half-A page's final choice under the fitted selector to FILE")
	flag.StringVar(&selectAgainst, "against", "", "with -train select: count the half-A pages whose choice differs from FILE's (a -choices file)")
	flag.BoolVar(&selectShowB, "heldout", false, "with -select: also print half B's rows (to judge a change once it is written; never while writing it)")
	flag.Parse()

	if *sel || *train == "select" {
		// The selector reads the three corpora (readability and
		// trafilatura-eval beside wcxb-dev) on its own.
		cps, err := cachedCandidatePages(*dir, *cache)
		must(err)
		if *switches {
			listSwitches(cps)
			return
		}
		if *sel {
			headroom(cps)
			return
		}
		if *crossFitted {
			must(crossFit(*dir, cps))
		}
		if !*selTypes {
			dropTypeProbs(cps)
		}
		if *prior != "" {
			selectPrior, err = readPrior(*prior)
			must(err)
		}
		must(trainSelect(cps, filepath.Join(*out, "select_model.go")))
		return
	}
	pages, err := load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *only != "" {
		var sel []*page
		for _, p := range pages {
			if string(content.PageTypes[p.label]) == *only {
				sel = append(sel, p)
			}
		}
		pages = sel
	}
	if *fast {
		for _, p := range pages {
			f, probs, err := content.PageTypeFeatures(p.html, p.url)
			must(err)
			for _, d := range strings.Split(*drop, ",") {
				for i, n := range content.TypeFeatureNames {
					if n == d {
						f[i] = 0
					}
				}
			}
			p.feats = f
			p.pred = argmax(probs)
			if p.name == *onePage && p.halfA {
				fmt.Printf("%s %s:", p.name, content.PageTypes[p.label])
				for k, t := range content.PageTypes {
					fmt.Printf(" %s %.2f", abbrev(t), probs[k])
				}
				fmt.Println()
			}
		}
		switch *train {
		case "types":
			must(trainTypes(pages, filepath.Join(*out, "pagetype_model.go")))
		case "":
			confusion(pages, true)
		default:
			must(fmt.Errorf("-fast: only with -train types"))
		}
		return
	}
	for _, p := range pages {
		doc, err := content.HTML(p.html, p.url, content.Options{OnlyMainContent: true})
		if err != nil {
			doc = &content.Document{}
		}
		p.doc = doc
		p.feats = doc.TypeFeatures()
		p.f1 = f1(tokens(doc.Text), tokens(p.truth))
		if *dump != "" {
			must(os.WriteFile(filepath.Join(*dump, p.name+".txt"), []byte(doc.Text), 0o644))
		}
		for k, t := range content.PageTypes {
			if t == doc.PageType {
				p.pred = k
			}
		}
	}
	if *confTSV != "" {
		must(writeConfTSV(pages, *confTSV))
	}
	switch *train {
	case "types":
		must(trainTypes(pages, filepath.Join(*out, "pagetype_model.go")))
		return
	case "confidence":
		must(trainConfidence(pages, filepath.Join(*out, "confidence_model.go")))
		return
	case "":
	default:
		must(fmt.Errorf("-train: want types, confidence or select, not %q", *train))
	}
	report(pages)
	if *worst > 0 {
		listWorst(pages, *worst)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// halfA tells whether a page is in the tuning half: FNV-1a 32 of its
// name is even.
func halfA(name string) bool { return hash(name)%2 == 0 }

func hash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

func load(dir string) ([]*page, error) {
	files, err := filepath.Glob(filepath.Join(dir, "html", "*.html.gz"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no pages under %s/html (err %v)", dir, err)
	}
	sort.Strings(files)
	var pages []*page
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".html.gz")
		raw, err := os.ReadFile(filepath.Join(dir, "ground-truth", name+".json"))
		if err != nil {
			return nil, err
		}
		var gt struct {
			URL         string `json:"url"`
			GroundTruth struct {
				MainContent string `json:"main_content"`
			} `json:"ground_truth"`
			Internal struct {
				PageType struct {
					Primary string `json:"primary"`
				} `json:"page_type"`
			} `json:"_internal"`
		}
		if err := json.Unmarshal(raw, &gt); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		label := gt.Internal.PageType.Primary
		if label == "category" {
			label = "collection"
		}
		k := -1
		for i, t := range content.PageTypes {
			if string(t) == label {
				k = i
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("%s: unknown page type %q", name, label)
		}
		gz, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		body, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		body, _ = fetch.ToUTF8(body, "text/html", "text/html")
		pages = append(pages, &page{name: name, url: gt.URL, label: k, truth: gt.GroundTruth.MainContent,
			html: body, halfA: halfA(name)})
	}
	return pages, nil
}

// tokens are the corpus's words: lower-cased runs of \w (letters, marks,
// digits, underscore).
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) || r == '_')
	})
}

// f1 is the word-multiset F1 of got against want.
func f1(got, want []string) float64 {
	if len(got) == 0 || len(want) == 0 {
		if len(got) == len(want) {
			return 1
		}
		return 0
	}
	w := make(map[string]int, len(want))
	for _, t := range want {
		w[t]++
	}
	common := 0
	for _, t := range got {
		if w[t] > 0 {
			w[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p := float64(common) / float64(len(got))
	r := float64(common) / float64(len(want))
	return 2 * p * r / (p + r)
}

func report(pages []*page) {
	confusion(pages, true)
	confusion(pages, false)
	reportF1(pages)
}

func argmax(p []float64) int {
	k := 0
	for i, x := range p {
		if x > p[k] {
			k = i
		}
	}
	return k
}

// confusion prints the classifier's accuracy and confusion table on one
// half.
func confusion(pages []*page, half bool) {
	nt := len(content.PageTypes)
	{
		name := "B (held out)"
		if half {
			name = "A (trained on)"
		}
		conf := make([][]int, nt)
		for i := range conf {
			conf[i] = make([]int, nt)
		}
		n, right := 0, 0
		for _, p := range pages {
			if p.halfA != half {
				continue
			}
			n++
			conf[p.label][p.pred]++
			if p.label == p.pred {
				right++
			}
		}
		fmt.Printf("\nhalf %s: %d pages, accuracy %.3f\n\n", name, n, float64(right)/float64(n))
		fmt.Printf("| label \\ predicted |")
		for _, t := range content.PageTypes {
			fmt.Printf(" %s |", abbrev(t))
		}
		fmt.Printf(" recall |\n|---|")
		for range content.PageTypes {
			fmt.Printf("---|")
		}
		fmt.Printf("---|\n")
		for i, t := range content.PageTypes {
			fmt.Printf("| %s |", t)
			tot := 0
			for j := range content.PageTypes {
				fmt.Printf(" %d |", conf[i][j])
				tot += conf[i][j]
			}
			fmt.Printf(" %.2f |\n", float64(conf[i][i])/float64(max(tot, 1)))
		}
	}
}

func reportF1(pages []*page) {
	fmt.Printf("\nF1 by labelled type (mean per-page word F1, main content):\n\n| type | A pages | A | B pages | B | all |\n|---|---|---|---|---|---|\n")
	rows := append([]string{"all"}, typeNames()...)
	for _, t := range rows {
		var s [2]float64
		var c [2]int
		for _, p := range pages {
			if t != "all" && string(content.PageTypes[p.label]) != t {
				continue
			}
			h := 1
			if p.halfA {
				h = 0
			}
			s[h] += p.f1
			c[h]++
		}
		fmt.Printf("| %s | %d | %.3f | %d | %.3f | %.3f |\n", t, c[0], s[0]/float64(max(c[0], 1)), c[1],
			s[1]/float64(max(c[1], 1)), (s[0]+s[1])/float64(max(c[0]+c[1], 1)))
	}
	fmt.Printf("\nconfidence against F1 (AUC: of confidence for F1 < 0.5; ± the standard deviation over %d resamples of the half's pages):\n\n| half | Spearman | AUC (F1 < 0.5) | pages < 0.5 | their F1 | pages ≥ 0.5 | their F1 | MAE |\n|---|---|---|---|---|---|---|---|\n", resamples)
	for _, half := range []bool{true, false} {
		var conf, f []float64
		var lo, hi, nlo, nhi, mae float64
		for _, p := range pages {
			if p.halfA != half || p.doc.Confidence < 0 {
				continue
			}
			conf = append(conf, p.doc.Confidence)
			f = append(f, p.f1)
			mae += math.Abs(p.doc.Confidence - p.f1)
			if p.doc.Confidence < 0.5 {
				lo += p.f1
				nlo++
			} else {
				hi += p.f1
				nhi++
			}
		}
		name := "B"
		if half {
			name = "A"
		}
		spSD, aucSD := resampleSD(conf, f)
		fmt.Printf("| %s | %.3f ± %.3f | %.3f ± %.3f | %.0f | %.3f | %.0f | %.3f | %.3f |\n", name, rankstat.Spearman(conf, f), spSD,
			rankstat.AUCLow(conf, f), aucSD, nlo, lo/max(nlo, 1), nhi, hi/max(nhi, 1), mae/float64(max(len(conf), 1)))
	}
}

func typeNames() []string {
	var s []string
	for _, t := range content.PageTypes {
		s = append(s, string(t))
	}
	return s
}

func abbrev(t content.PageType) string { return string(t)[:4] }

func listWorst(pages []*page, n int) {
	for k, t := range content.PageTypes {
		var sel []*page
		for _, p := range pages {
			if p.halfA && p.label == k {
				sel = append(sel, p)
			}
		}
		sort.Slice(sel, func(i, j int) bool { return sel[i].f1 < sel[j].f1 })
		fmt.Printf("\nworst %s pages of half A:\n", t)
		for _, p := range sel[:min(n, len(sel))] {
			fmt.Printf("  %s F1 %.3f conf %.2f predicted %s words got %d want %d %s\n", p.name, p.f1, p.doc.Confidence,
				content.PageTypes[p.pred], len(tokens(p.doc.Text)), len(tokens(p.truth)), p.url)
		}
	}
}

// typeCols adds the classifier's inputs to -conftsv's columns.
var typeCols bool

// writeConfTSV writes each page's confidence inputs with its F1, half,
// label and confidence (a header line first).
func writeConfTSV(pages []*page, path string) error {
	var b bytes.Buffer
	b.WriteString("name\thalf\tlabel\tf1\tconfidence\tgot_words\twant_words")
	for _, n := range content.ConfidenceFeatureNames {
		b.WriteString("\t" + n)
	}
	if typeCols {
		for _, n := range content.TypeFeatureNames {
			b.WriteString("\tt_" + n)
		}
	}
	b.WriteString("\n")
	for _, p := range pages {
		if p.doc.Confidence < 0 {
			continue
		}
		h := "B"
		if p.halfA {
			h = "A"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%.4f\t%.2f\t%d\t%d", p.name, h, content.PageTypes[p.label], p.f1, p.doc.Confidence,
			len(tokens(p.doc.Text)), len(tokens(p.truth)))
		for _, x := range p.doc.ConfidenceFeatures() {
			fmt.Fprintf(&b, "\t%.6g", x)
		}
		if typeCols {
			for _, x := range p.doc.TypeFeatures() {
				fmt.Fprintf(&b, "\t%.6g", x)
			}
		}
		b.WriteString("\n")
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// resamples is how many resamples of a half's pages resampleSD draws.
const resamples = 1000

// resampleSD returns the standard deviations of Spearman's rank
// correlation and of aucLow over resamples of the pages (drawn with
// replacement, seed 1): the spread a change must clear to be more than
// the draw of pages.
func resampleSD(conf, f []float64) (sp, auc float64) {
	rng := rand.New(rand.NewSource(1))
	var sps, aucs []float64
	c, g := make([]float64, len(conf)), make([]float64, len(conf))
	for range resamples {
		for i := range c {
			j := rng.Intn(len(conf))
			c[i], g[i] = conf[j], f[j]
		}
		sps = append(sps, rankstat.Spearman(c, g))
		if a := rankstat.AUCLow(c, g); !math.IsNaN(a) {
			aucs = append(aucs, a)
		}
	}
	return stdDev(sps), stdDev(aucs)
}

func stdDev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(v)-1))
}
