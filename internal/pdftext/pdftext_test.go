package pdftext

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"webacq/internal/content/contenttest"
	"webacq/internal/fetch"
)

// readers returns the sandboxed reader (skipping the test where poppler
// is not installed) or the pure-Go one, with limits lim.
func readers(t *testing.T, lim Limits) map[string]*Reader {
	t.Helper()
	rs := map[string]*Reader{"fallback": NewFallback(lim)}
	if r := New(lim); r.Sandboxed() {
		rs["poppler"] = r
	} else {
		t.Log("pdftotext or prlimit missing: only the fallback is tested (run scripts/setup.sh)")
	}
	return rs
}

func poppler(t *testing.T, lim Limits) *Reader {
	t.Helper()
	r := New(lim)
	if !r.Sandboxed() {
		t.Skip("pdftotext or prlimit missing (run scripts/setup.sh)")
	}
	return r
}

// pagesPDF builds a PDF of one page per text, each drawn with Td.
func pagesPDF(texts ...string) []byte {
	n := len(texts)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	var kids []string
	for i, s := range texts {
		page, content := 4+2*i, 5+2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", s)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R >>", content),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /Resources << /Font << /F1 3 0 R >> >> >>", strings.Join(kids, " "), n)
	objs = append(objs[:2], append([]string{"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}, objs[2:]...)...)
	return contenttest.Build(objs, "")
}

func TestDefaultMaxTextIsTheDocumentLimit(t *testing.T) {
	if DefaultMaxText != fetch.DefaultMaxBodyBytes {
		t.Errorf("DefaultMaxText %d, want the 25 MB document limit %d", DefaultMaxText, fetch.DefaultMaxBodyBytes)
	}
}

func TestReadPages(t *testing.T) {
	body := pagesPDF("First page.", "Second page.", "Third page.")
	for name, r := range readers(t, Limits{}) {
		t.Run(name, func(t *testing.T) {
			res, err := r.Read(context.Background(), body)
			if err != nil {
				t.Fatal(err)
			}
			if want := "First page.\n\nSecond page.\n\nThird page."; res.Text != want {
				t.Errorf("got %q, want %q", res.Text, want)
			}
		})
	}
}

func TestReadTextCap(t *testing.T) {
	body := contenttest.PDF("Capped", [][]string{{strings.Repeat("word ", 30)}, {strings.Repeat("more ", 30)}})
	for name, r := range readers(t, Limits{MaxText: 100}) {
		t.Run(name, func(t *testing.T) {
			_, err := r.Read(context.Background(), body)
			var le *LimitError
			if !errors.As(err, &le) || !strings.Contains(le.Message, "text is larger") {
				t.Errorf("got %v, want the text limit", err)
			}
		})
	}
}

func TestFallbackPageCap(t *testing.T) {
	body := pagesPDF("one", "two", "three")
	if _, err := NewFallback(Limits{MaxPages: 3}).Read(context.Background(), body); err != nil {
		t.Fatalf("3 pages under a cap of 3: %v", err)
	}
	_, err := NewFallback(Limits{MaxPages: 2}).Read(context.Background(), body)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "more than 2 pages") {
		t.Errorf("3 pages under a cap of 2: got %v, want the page limit", err)
	}
}

func TestFallbackInflatedCap(t *testing.T) {
	_, err := NewFallback(Limits{MaxInflated: 1 << 20}).Read(context.Background(), contenttest.FlateBombPDF(4<<20))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "inflates to more than 1 MB") {
		t.Errorf("got %v, want the decompressed-bytes limit", err)
	}
}

// TestFallbackDeepTree: a page tree nested past maxTreeDepth is refused,
// not recursed into.
func TestFallbackDeepTree(t *testing.T) {
	depth := maxTreeDepth + 10
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	for i := 0; i < depth; i++ {
		objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", i+3))
	}
	objs = append(objs, "<< /Type /Page /MediaBox [0 0 612 792] >>")
	_, err := NewFallback(Limits{}).Read(context.Background(), contenttest.Build(objs, ""))
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("got %v, want a too-deep page tree", err)
	}
}

// TestFallbackCMapCount: a ToUnicode CMap announcing two billion entries
// (the library would append them all, once per end operator) is not
// handed to the library; the text reads with codes passed through.
func TestFallbackCMapCount(t *testing.T) {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"1 begincodespacerange <00> <FF> endcodespacerange\n" +
		"2147483647 beginbfchar <41> <0042> endbfchar endbfchar endbfchar\nendcmap end end\n"
	stream := "BT /F1 12 Tf 72 720 Td (AAA) Tj ET"
	body := contenttest.Build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap),
	}, "")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := NewFallback(Limits{}).Read(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "AAA" {
		t.Errorf("got %q, want the codes passed through", res.Text)
	}
}

// TestFallbackPredictorColumns: a predictor row of a billion columns
// (the library allocates the row before reading anything) skips the
// stream instead of allocating.
func TestFallbackPredictorColumns(t *testing.T) {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("BT /F1 12 Tf 72 720 Td (hidden) Tj ET"))
	zw.Close()
	body := contenttest.Build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 1000000000 >> >>\nstream\n%s\nendstream", z.Len(), z.String()),
	}, "")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := NewFallback(Limits{}).Read(context.Background(), body)
	runtime.ReadMemStats(&after)
	if err != nil || res.Text != "" {
		t.Errorf("got %+v, %v; want no text and no error", res, err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("allocated %d MB for a 100-byte stream", n>>20)
	}
}

// TestReadStopsWithContext: the decompression bomb, which takes seconds of
// CPU, stops soon after ctx ends, on both readers; the poppler child is
// gone by then (Read returns after waiting for it).
func TestReadStopsWithContext(t *testing.T) {
	bomb := contenttest.FlateBombPDF(200 << 20)
	for name, r := range readers(t, Limits{}) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			t0 := time.Now()
			_, err := r.Read(ctx, bomb)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want the deadline", err)
			}
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("returned %s after a 300 ms deadline", d)
			}
		})
	}
	if r := New(Limits{}); r.Sandboxed() {
		if out, _ := exec.Command("pgrep", "-P", fmt.Sprint(os.Getpid()), "pdftotext").Output(); len(out) > 0 {
			t.Errorf("pdftotext still running: %s", out)
		}
	}
}

// TestPopplerCPULimit: the bomb is stopped by the child's CPU limit and
// reported as such, well before a long deadline.
func TestPopplerCPULimit(t *testing.T) {
	r := poppler(t, Limits{CPU: time.Second})
	bomb := contenttest.FlateBombPDF(200 << 20)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := r.Read(ctx, bomb)
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "1s of CPU time") {
		t.Errorf("got %v, want the CPU limit", err)
	}
}

// TestPopplerMemoryLimit: the bomb under a small address space fails an
// allocation and is reported as the memory limit.
func TestPopplerMemoryLimit(t *testing.T) {
	r := poppler(t, Limits{Memory: 48 << 20})
	if _, err := r.Read(context.Background(), contenttest.PDF("Small", [][]string{{"fits"}})); err != nil {
		t.Fatalf("a small document under 48 MiB: %v", err)
	}
	_, err := r.Read(context.Background(), contenttest.FlateBombPDF(200<<20))
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Message, "48 MiB of memory") {
		t.Errorf("got %v, want the memory limit", err)
	}
}

func TestParseBBox(t *testing.T) {
	out := `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<title>Fish &amp; Chips
Annual</title>
<meta name="Author" content="A &quot;B&quot; C"/>
<meta name="Creator" content="TeX"/>
</head>
<body>
<doc>
  <page width="612.000000" height="792.000000">
    <flow>
      <block xMin="1" yMin="1" xMax="2" yMax="2">
        <line xMin="1" yMin="1" xMax="2" yMax="2">
          <word xMin="10" yMin="1" xMax="20" yMax="11">a&lt;b</word>
          <word xMin="23" yMin="1" xMax="40" yMax="11">split
word</word>
          <word xMin="40" yMin="1" xMax="41" yMax="11">.</word>
        </line>
        <line xMin="1" yMin="1" xMax="2" yMax="2">
          <word xMin="10" yMin="13" xMax="30" yMax="23">second</word>
        </line>
      </block>
      <block xMin="1" yMin="1" xMax="2" yMax="2">
        <line xMin="1" yMin="1" xMax="2" yMax="2">
          <word xMin="1" yMin="1" xMax="2" yMax="2">para</word>
        </line>
      </block>
    </flow>
  </page>
  <page width="612.000000" height="792.000000">
    <flow>
      <block xMin="1" yMin="1" xMax="2" yMax="2">
        <line xMin="1" yMin="1" xMax="2" yMax="2">
          <word xMin="1" yMin="1" xMax="2" yMax="2">next</word>
        </line>
      </block>
    </flow>
  </page>
</doc>
</body>
</html>
`
	res, err := parseBBox(strings.NewReader(out), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a<b split word.\nsecond\n\npara\n\nnext"; res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
	if res.Title != "Fish & Chips\nAnnual" || res.Author != `A "B" C` || res.words != 6 {
		t.Errorf("got title %q, author %q, %d words", res.Title, res.Author, res.words)
	}

	if _, err := parseBBox(strings.NewReader(out), 10); !errors.Is(err, ErrLimit) {
		t.Errorf("10-byte cap: got %v, want ErrLimit", err)
	}
	// One endless line is refused before it is held whole.
	endless := "<word xMin=\"1\">" + strings.Repeat("x", 200<<10)
	if _, err := parseBBox(strings.NewReader(endless), 1000); !errors.Is(err, ErrLimit) {
		t.Errorf("endless line: got %v, want ErrLimit", err)
	}
}
