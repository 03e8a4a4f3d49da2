package pdftext

import (
	"context"
	"errors"
	"testing"
	"time"

	"webacq/internal/content/contenttest"
)

// FuzzPDF feeds arbitrary bytes to the pure-Go reader, the one that runs
// in process: it must never panic, must answer within its context, and
// must keep to its text limit.
func FuzzPDF(f *testing.F) {
	for _, seed := range [][]byte{
		contenttest.PDF("Seed", [][]string{{"line one", "line two"}, {"para"}}),
		contenttest.TeXPDF("TeX", []string{"kerned words here"}),
		contenttest.SelfKidsPDF(),
		contenttest.HugeCountPDF(),
		contenttest.FlateBombPDF(64 << 10),
		pagesPDF("a", "b"),
		builtinFontPDF(),
		formPDF("/X0 Do", "BT /F1 12 Tf 72 700 Td (form) Tj ET /X0 Do", "/Matrix [0 1 -1 0 600 0]"),
		streamPDF("BT /F3 10 Tf 72 720 Td <00410042> Tj ET", "/F3 7 0 R",
			"<< /Type /Font /Subtype /Type0 /BaseFont /T /Encoding /Identity-H /DescendantFonts [8 0 R] >>",
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /T /DW 300 /W [65 [250 260] 70 80 400] >>"),
		[]byte("%PDF-1.4\n%%EOF\n"),
	} {
		f.Add(seed)
	}
	r := NewFallback(Limits{MaxText: 1 << 20, MaxInflated: 4 << 20, MaxPages: 100})
	f.Fuzz(func(t *testing.T, body []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		t0 := time.Now()
		res, err := r.Read(ctx, body)
		if d := time.Since(t0); d > 10*time.Second {
			t.Fatalf("answered after %s under a 5 s deadline", d)
		}
		if err != nil {
			if !errors.Is(err, ErrUnreadable) && !errors.Is(err, ErrLimit) && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		if len(res.Text) > 1<<20+1<<16 {
			t.Fatalf("%d bytes of text past a 1 MB limit", len(res.Text))
		}
	})
}
