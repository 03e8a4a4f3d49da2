package main

import (
	"io"
	"math/rand"
	"reflect"
	"testing"

	"webacq/internal/content"
)

// synthetic returns pages whose boundaries gain when a made-up feature
// says so, in two hosts per fold.
func synthetic(seed int64) []*tPage {
	r := rand.New(rand.NewSource(seed))
	var ps []*tPage
	for i := 0; i < 60; i++ {
		p := &tPage{Corpus: "wcxb", Name: string(rune('a' + i%26)), Type: "product", Host: string(rune('a'+i%10)) + ".example", Base: 0.6}
		for j := 0; j < 5; j++ {
			f := make([]float64, content.TailFeatureCount)
			f[0] = 1
			for k := 1; k < len(f); k++ {
				f[k] = r.Float64()
			}
			gain := 0.2*f[1] - 0.1
			p.Bounds = append(p.Bounds, content.TailBoundary{Cut: j + 1, Features: f})
			p.Score = append(p.Score, p.Base+gain)
			p.TP, p.FP = append(p.TP, 0), append(p.FP, 0)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestTrainReproducible: two fits of the same pages write the same
// model, and the fit finds the gain.
func TestTrainReproducible(t *testing.T) {
	a, err := train(synthetic(1), opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := train(synthetic(1), opt, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two fits differ")
	}
	wt := fit(synthetic(1), 1)
	if wt[1] <= 0 {
		t.Errorf("the fit misses the gain of feature 1: %v", wt[1])
	}
}
