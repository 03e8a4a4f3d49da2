package content

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"webacq/internal/content/contenttest"
	"webacq/internal/pdftext"
)

// pdfReaders are the two ways a PDF is read: pdftotext in a sandbox
// (skipped where poppler is not installed) and the pure-Go fallback.
func pdfReaders(t *testing.T) map[string]*pdftext.Reader {
	t.Helper()
	rs := map[string]*pdftext.Reader{"fallback": pdftext.NewFallback(pdftext.Limits{})}
	if r := pdftext.New(pdftext.Limits{}); r.Sandboxed() {
		rs["poppler"] = r
	} else {
		t.Log("pdftotext or prlimit missing: only the fallback is tested (run scripts/setup.sh)")
	}
	return rs
}

func TestPDF(t *testing.T) {
	body := contenttest.PDF("A Tiny Report", [][]string{
		{"First paragraph, line one.", "First paragraph, line two."},
		{"Second paragraph."},
	})
	for name, r := range pdfReaders(t) {
		t.Run(name, func(t *testing.T) {
			doc, err := PDFWith(context.Background(), r, body)
			if err != nil {
				t.Fatal(err)
			}
			want := "First paragraph, line one.\nFirst paragraph, line two.\n\nSecond paragraph."
			if doc.Markdown != want {
				t.Errorf("markdown: got %q, want %q", doc.Markdown, want)
			}
			if doc.Metadata.Title != "A Tiny Report" || doc.Metadata.Author != "Test Author" {
				t.Errorf("metadata: got %+v", doc.Metadata)
			}
			for name, bad := range map[string][]byte{
				"truncated": body[:len(body)/2],
				"garbage":   []byte("%PDF-1.4\nthis is not a pdf at all\n%%EOF\n"),
				"html":      []byte("<html>nope</html>"),
			} {
				t.Run(name, func(t *testing.T) {
					if _, err := PDFWith(context.Background(), r, bad); !errors.Is(err, ErrBadPDF) {
						t.Errorf("got %v, want ErrBadPDF", err)
					}
				})
			}
		})
	}
	// Corrupt bytes anywhere must not panic (the fallback runs in process).
	fb := pdftext.NewFallback(pdftext.Limits{})
	for i := 0; i < len(body); i += 7 {
		mut := append([]byte(nil), body...)
		mut[i] ^= 0x5a
		_, _ = PDFWith(context.Background(), fb, mut)
	}
}

// TestPDFWordsOfTeX: words that TeX separates by kerning gaps, not by
// space characters, come out as words (the old reader glued each line
// into one).
func TestPDFWordsOfTeX(t *testing.T) {
	lines := []string{"The quick brown fox jumps over the lazy dog", "Typesetting with kerning gaps instead of spaces"}
	body := contenttest.TeXPDF("Kerned", lines)
	for name, r := range pdfReaders(t) {
		t.Run(name, func(t *testing.T) {
			doc, err := PDFWith(context.Background(), r, body)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := strings.Fields(doc.Text), strings.Fields(strings.Join(lines, " ")); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("words: got %q, want %q", got, want)
			}
		})
	}
}

// TestPDFHostile: a page tree that lists itself, one that declares
// 2,147,483,647 pages and a 200 MB decompression bomb each end in an
// error, in bounded time, on both readers. The limits are lowered to keep
// the test short; the whole-node test runs the bomb on the defaults.
func TestPDFHostile(t *testing.T) {
	bomb := contenttest.FlateBombPDF(200 << 20)
	lim := pdftext.Limits{CPU: 2 * time.Second, MaxInflated: 16 << 20}
	readers := map[string]*pdftext.Reader{"fallback": pdftext.NewFallback(lim)}
	if r := pdftext.New(lim); r.Sandboxed() {
		readers["poppler"] = r
	}
	for name, r := range readers {
		for doc, c := range map[string]struct {
			body []byte
			want error
		}{
			"self-kids":  {contenttest.SelfKidsPDF(), ErrBadPDF},
			"huge-count": {contenttest.HugeCountPDF(), ErrBadPDF},
			"bomb":       {bomb, pdftext.ErrLimit},
		} {
			t.Run(name+"/"+doc, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				t0 := time.Now()
				_, err := PDFWith(ctx, r, c.body)
				if !errors.Is(err, c.want) {
					t.Errorf("got %v, want %v", err, c.want)
				}
				t.Logf("%s in %s", err, time.Since(t0).Round(time.Millisecond))
			})
		}
	}
}
