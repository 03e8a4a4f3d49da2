package rankstat

import (
	"math"
	"testing"
)

func TestAUCLow(t *testing.T) {
	f := []float64{0.1, 0.3, 0.9, 0.95, 1}
	// Every page under 0.5 has a lower confidence than every page above.
	if got := AUCLow([]float64{0.2, 0.3, 0.7, 0.8, 0.9}, f); got != 1 {
		t.Errorf("separated: got %v, want 1", got)
	}
	// Reversed.
	if got := AUCLow([]float64{0.9, 0.8, 0.3, 0.2, 0.1}, f); got != 0 {
		t.Errorf("reversed: got %v, want 0", got)
	}
	// All tied: a half.
	if got := AUCLow([]float64{0.5, 0.5, 0.5, 0.5, 0.5}, f); got != 0.5 {
		t.Errorf("tied: got %v, want 0.5", got)
	}
	// One of the six pairs misordered.
	if got := AUCLow([]float64{0.2, 0.75, 0.7, 0.8, 0.9}, f); math.Abs(got-5.0/6) > 1e-9 {
		t.Errorf("one pair: got %v, want 5/6", got)
	}
	if got := AUCLow([]float64{0.2, 0.3}, []float64{0.9, 1}); !math.IsNaN(got) {
		t.Errorf("no page under 0.5: got %v, want NaN", got)
	}
}

func TestSpearman(t *testing.T) {
	if got := Spearman([]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}); math.Abs(got-1) > 1e-12 {
		t.Errorf("same order: got %v, want 1", got)
	}
	if got := Spearman([]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}); math.Abs(got+1) > 1e-12 {
		t.Errorf("reversed: got %v, want -1", got)
	}
	if got := Spearman([]float64{1, 2, 3}, []float64{5, 5, 5}); got != 0 {
		t.Errorf("constant: got %v, want 0", got)
	}
	if got := Ranks([]float64{3, 1, 3, 2}); got[0] != 2.5 || got[1] != 0 || got[2] != 2.5 || got[3] != 1 {
		t.Errorf("ranks with a tie: got %v, want [2.5 0 2.5 1]", got)
	}
}
