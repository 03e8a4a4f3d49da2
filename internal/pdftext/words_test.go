package pdftext

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"webacq/internal/content/contenttest"
)

// streamPDF builds a one-page PDF whose content stream is stream, with
// Helvetica as /F1 and Courier as /F2, and fonts as further entries of
// the font resources (their objects appended from number 7 on).
func streamPDF(stream, fonts string, objs ...string) []byte {
	return contenttest.Build(append([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R " + fonts + " >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
	}, objs...), "")
}

// cmapStream is a ToUnicode CMap stream object with the given code space
// and entries.
func cmapStream(space, entries string) string {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"/CMapName /Test def /CMapType 2 def\n" +
		"1 begincodespacerange " + space + " endcodespacerange\n" +
		entries + "\nendcmap CMapName currentdict /CMap defineresource pop end end\n"
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap)
}

// TestReadWordsAcrossRuns: text drawn in pieces reads as the words a
// person sees, on both readers — a font change inside a word ("command"
// in typewriter type, then "." in roman) and a superscript after a word
// add no space, a word gap does, and a word hyphenated at a line's end
// is joined.
func TestReadWordsAcrossRuns(t *testing.T) {
	stream := strings.Join([]string{
		"BT /F1 12 Tf 1 0 0 1 72 720 Tm (Run the ) Tj /F2 12 Tf (command) Tj /F1 12 Tf (. Then x) Tj ET",
		// The superscript: 8 pt, 4 pt up, right after the x, which ends
		// at 211.12 by Helvetica's and Courier's widths.
		"BT /F1 8 Tf 1 0 0 1 211.12 724 Tm (2) Tj ET",
		"BT /F1 12 Tf 1 0 0 1 72 706 Tm (grows. This is the refer-) Tj ET",
		"BT /F1 12 Tf 1 0 0 1 72 692 Tm (ence manual.) Tj ET",
	}, "\n")
	body := streamPDF(stream, "")
	want := "Run the command. Then x2\ngrows. This is the reference\nmanual."
	for name, r := range readers(t, Limits{}) {
		t.Run(name, func(t *testing.T) {
			res, err := r.Read(context.Background(), body)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != want {
				t.Errorf("got %q, want %q", res.Text, want)
			}
		})
	}
}

// TestFallbackCIDWidths: a composite font's glyph widths come from its
// /W and /DW, so the gap after a run of narrow glyphs is seen as the word
// gap it is (at the 500 the reader once assumed, "ABCD" ended past where
// "EF" starts and the two glued).
func TestFallbackCIDWidths(t *testing.T) {
	cmap := cmapStream("<0000> <FFFF>", "1 beginbfrange <0041> <005A> <0041> endbfrange")
	font := func(widths string) []string {
		return []string{
			"<< /Type /Font /Subtype /Type0 /BaseFont /Test /Encoding /Identity-H /DescendantFonts [8 0 R] /ToUnicode 9 0 R >>",
			"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Test /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> " + widths + " >>",
			cmap,
		}
	}
	// "ABCD" at 10 pt is 10 pt wide with 250-unit glyphs: it ends at 82,
	// 3 pt (0.3 of the size) before "EF".
	stream := "BT /F3 10 Tf 1 0 0 1 72 720 Tm <0041004200430044> Tj ET BT /F3 10 Tf 1 0 0 1 85 720 Tm <00450046> Tj ET"
	for name, widths := range map[string]string{
		"W list":  "/W [65 [250 250 250 250 250 250]]",
		"W range": "/W [65 70 250]",
		"DW":      "/DW 250",
	} {
		t.Run(name, func(t *testing.T) {
			body := streamPDF(stream, "/F3 7 0 R", font(widths)...)
			res, err := NewFallback(Limits{}).Read(context.Background(), body)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "ABCD EF" {
				t.Errorf("got %q, want %q", res.Text, "ABCD EF")
			}
		})
	}
}

// TestReadTurnedText: the lines of a page written sideways (baselines
// going up the page, as on a landscape page) read as lines, each in one
// piece, on both readers.
func TestReadTurnedText(t *testing.T) {
	stream := strings.Join([]string{
		"BT /F1 1 Tf 0 12 -12 0 300 100 Tm (Sideways text) Tj ( reads) Tj ET",
		"BT /F1 1 Tf 0 12 -12 0 314 100 Tm (line by line.) Tj ET",
	}, "\n")
	body := streamPDF(stream, "")
	want := "Sideways text reads\nline by line."
	for name, r := range readers(t, Limits{}) {
		t.Run(name, func(t *testing.T) {
			res, err := r.Read(context.Background(), body)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != want {
				t.Errorf("got %q, want %q", res.Text, want)
			}
		})
	}
}

// TestReadLigatures: a ligature glyph mapped to U+FB01 reads as the two
// letters, on both readers.
func TestReadLigatures(t *testing.T) {
	cmap := cmapStream("<00> <FF>", "1 beginbfchar <01> <FB01> endbfchar\n1 beginbfrange <20> <7E> <0020> endbfrange")
	body := streamPDF("BT /F3 12 Tf 72 720 Td (The \\001le) Tj ET", "/F3 7 0 R",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 8 0 R >>", cmap)
	for name, r := range readers(t, Limits{}) {
		t.Run(name, func(t *testing.T) {
			res, err := r.Read(context.Background(), body)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != "The file" {
				t.Errorf("got %q, want %q", res.Text, "The file")
			}
		})
	}
}

func TestMendHyphens(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"broken word", "the refer-\nence manual", "the reference\nmanual"},
		{"only word of the next line", "the refer-\nence\nand more", "the reference\nand more"},
		{"punctuation after", "a refer-\nence.", "a reference."},
		{"two in a row", "in-\ncom-\nprehensible", "incomprehensible"},
		{"compound the document writes", "language-specific rules and language-\nspecific ones", "language-specific rules and language-specific\nones"},
		{"word the document writes whole", "co-operate or cooperate, co-\noperate", "co-operate or cooperate, cooperate"},
		{"word with a hyphen of its own", "the gri-set-command-\npostarguments", "the gri-set-command-postarguments"},
		{"identifier", "xref.label-title.separator and xref.label-\ntitle.separator", "xref.label-title.separator and xref.label-title.separator"},
		{"soft hyphen", "refer\u00ad\nence", "reference"},
		{"capital after", "Hello-\nWorld", "Hello-\nWorld"},
		{"dash", "a list -\nitem", "a list -\nitem"},
		{"digit before", "pages 10-\n12", "pages 10-\n12"},
		{"across paragraphs", "the refer-\n\nence", "the refer-\n\nence"},
		{"no hyphen", "plain\ntext", "plain\ntext"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mendHyphens(c.in); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestTouching(t *testing.T) {
	word := box{x0: 10, y0: 0, x1: 50, y1: 12, ok: true}
	for _, c := range []struct {
		name string
		next box
		want bool
	}{
		{"font change", box{x0: 50, y0: 0, x1: 53, y1: 12}, true},
		{"kerned into", box{x0: 49.8, y0: 0, x1: 53, y1: 12}, true},
		{"superscript", box{x0: 50.1, y0: -3, x1: 54, y1: 5}, true},
		{"word gap", box{x0: 53, y0: 0, x1: 80, y1: 12}, false},
		{"thin space", box{x0: 51.5, y0: 0, x1: 80, y1: 12}, false},
	} {
		if got := touching(word, c.next); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// A line written down the page: the gap is along y.
	up := box{x0: 0, y0: 10, x1: 12, y1: 50}
	if !touching(up, box{x0: 0, y0: 50, x1: 12, y1: 60}) || touching(up, box{x0: 0, y0: 54, x1: 12, y1: 70}) {
		t.Error("a vertical line's gaps are not read along y")
	}
}

// formPDF builds a one-page PDF whose content stream is stream, with the
// form XObject /X0 (object 6) drawing form and using Helvetica as /F1.
func formPDF(stream, form, formDict string) []byte {
	return contenttest.Build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X0 6 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] %s /Length %d >>\nstream\n%s\nendstream", formDict, len(form), form),
	}, "")
}

// TestReadFormXObject: text drawn by a form XObject (an included page)
// is read in its place, moved by the form's matrix and the cm before it.
func TestReadFormXObject(t *testing.T) {
	body := formPDF(
		"BT /F1 12 Tf 72 720 Td (Above the form.) Tj ET q 1 0 0 1 0 -100 cm /X0 Do Q BT /F1 12 Tf 72 500 Td (Below it.) Tj ET",
		"BT /F1 12 Tf 72 700 Td (Drawn by the form.) Tj ET",
		"/Matrix [1 0 0 1 0 -20] /Resources << /Font << /F1 5 0 R >> >>")
	want := "Above the form. Drawn by the form. Below it."
	for name, r := range readers(t, Limits{}) {
		t.Run(name, func(t *testing.T) {
			res, err := r.Read(context.Background(), body)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(strings.Fields(res.Text), " ") != want {
				t.Errorf("got %q, want %q", res.Text, want)
			}
		})
	}
}

// TestFallbackFormLoop: a form that draws itself many times over is cut
// off by the nesting bound and the decompressed-bytes limit, well within
// a deadline.
func TestFallbackFormLoop(t *testing.T) {
	form := "BT /F1 12 Tf 72 700 Td (again) Tj ET " + strings.Repeat("/X0 Do ", 50)
	body := formPDF("/X0 Do", form, "/Resources << /Font << /F1 5 0 R >> /XObject << /X0 6 0 R >> >>")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t0 := time.Now()
	_, err := NewFallback(Limits{MaxInflated: 1 << 20}).Read(ctx, body)
	if !errors.Is(err, ErrLimit) {
		t.Errorf("got %v, want a limit", err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestFallbackBuiltinEncoding: a TeX font that names no encoding and has
// no ToUnicode map is decoded by the encoding of its embedded Type 1
// program, where code 12 is the "fi" ligature and 58 a period (math
// italic's), not PDFDocEncoding's U+FFFD and colon.
func TestFallbackBuiltinEncoding(t *testing.T) {
	res, err := NewFallback(Limits{}).Read(context.Background(), builtinFontPDF())
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The file." {
		t.Errorf("got %q, want %q", res.Text, "The file.")
	}
}

// builtinFontPDF draws "The file." with a font whose encoding is only in
// its embedded Type 1 program.
func builtinFontPDF() []byte {
	program := "%!PS-AdobeFont-1.0: CMR10 003.002\n/FontName /CMR10 def\n/Encoding 256 array\n" +
		"0 1 255 {1 index exch /.notdef put} for\ndup 12 /fi put\ndup 58 /period put\ndup 84 /T put\n" +
		"dup 104 /h put\ndup 101 /e put\ndup 32 /space put\ndup 108 /l put\nreadonly def\ncurrentfile eexec\n" +
		"\x8a\x01\xff dup 13 /colon put garbage"
	return streamPDF("BT /F3 12 Tf 72 720 Td (The \\014le:) Tj ET", "/F3 7 0 R",
		"<< /Type /Font /Subtype /Type1 /BaseFont /CMR10 /FontDescriptor 8 0 R >>",
		"<< /Type /FontDescriptor /FontName /CMR10 /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 700 /Descent -200 /CapHeight 700 /StemV 80 /FontFile 9 0 R >>",
		fmt.Sprintf("<< /Length %d /Length1 %d /Length2 0 /Length3 0 >>\nstream\n%s\nendstream", len(program), len(program), program))
}

func TestGlyphRunes(t *testing.T) {
	for name, want := range map[string]string{
		"fi": "fi", "period": ".", "quoteright": "’", "T": "T", "eacute": "é",
		"Scaron": "Š", "uni00E9": "é", "u1F600": "😀", "f_f_i": "ffi", "a.sc": "a",
		"one.oldstyle": "1", "alpha": "α", "a10": "", "uniZZZZ": "", ".notdef": "",
	} {
		if got := glyphRunes(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}
