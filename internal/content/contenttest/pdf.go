// Package contenttest builds documents for tests of the content pipeline
// and of the services that fetch documents.
package contenttest

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"strings"
)

// helvetica is the font dictionary every generated page uses: a standard
// font, so readers know its metrics without an embedded program.
const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

// PDF builds a minimal valid PDF: one page whose text is the paragraphs'
// lines, and an Info dictionary with the title and author "Test Author".
func PDF(title string, paragraphs [][]string) []byte {
	var stream strings.Builder
	stream.WriteString("BT /F1 12 Tf\n")
	y := 750
	for _, p := range paragraphs {
		for _, line := range p {
			fmt.Fprintf(&stream, "1 0 0 1 72 %d Tm (%s) Tj\n", y, line)
			y -= 14
		}
		y -= 20
	}
	stream.WriteString("ET\n")
	return onePage(title, []byte(stream.String()), "")
}

// TeXPDF builds a one-page PDF whose lines are written the way TeX writes
// them: each line is one TJ array of glyph runs, words are separated by a
// kerning gap (-333 thousandths of an em) and never by a space character,
// and words of four letters or more carry a small kern after their first
// letter, as a kerned pair would. A reader that only concatenates the runs
// glues every line into one word.
func TeXPDF(title string, lines []string) []byte {
	var stream strings.Builder
	stream.WriteString("BT /F1 11 Tf 72 750 Td 13 TL\n")
	for _, line := range lines {
		stream.WriteByte('[')
		for i, w := range strings.Fields(line) {
			if i > 0 {
				stream.WriteString("-333")
			}
			if len(w) >= 4 {
				fmt.Fprintf(&stream, "(%s)28(%s)", w[:1], w[1:])
			} else {
				fmt.Fprintf(&stream, "(%s)", w)
			}
		}
		stream.WriteString("]TJ T*\n")
	}
	stream.WriteString("ET\n")
	return onePage(title, []byte(stream.String()), "")
}

// FlateBombPDF builds a small PDF whose one content stream, compressed
// with FlateDecode, inflates to at least inflated bytes of text-showing
// operators: a decompression bomb. It compresses one 64 KB chunk at the
// best compression and repeats the compressed chunk, which stands alone
// (it refers to no data before it), so even a 200 MB bomb builds in
// milliseconds under the race detector.
func FlateBombPDF(inflated int) []byte {
	line := []byte("BT /F1 12 Tf 72 720 Td (All work and no play makes a dull document) Tj ET\n")
	chunk := bytes.Repeat(line, 1<<16/len(line))
	var seg bytes.Buffer
	fw, _ := flate.NewWriter(&seg, flate.BestCompression)
	fw.Write(chunk)
	fw.Flush() // ends on a byte boundary, the last block not final
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda}) // zlib header: deflate, best compression
	sum, one := uint32(1), adler32.Checksum(chunk)
	for n := 0; n < inflated; n += len(chunk) {
		z.Write(seg.Bytes())
		sum = adler32Combine(sum, one, len(chunk))
	}
	z.Write([]byte{0x03, 0x00}) // an empty final block
	binary.Write(&z, binary.BigEndian, sum)
	return onePage("Bomb", z.Bytes(), "/Filter /FlateDecode")
}

// adler32Combine is the Adler-32 checksum of A followed by B, given A's
// checksum a, B's checksum b and B's length.
func adler32Combine(a, b uint32, lenB int) uint32 {
	const base = 65521
	rem := uint32(lenB % base)
	s1 := (a&0xffff + b&0xffff + base - 1) % base
	s2 := (rem*(a&0xffff)%base + a>>16 + b>>16 + base - rem) % base
	return s2<<16 | s1
}

// SelfKidsPDF builds a PDF whose page tree lists itself among its own
// kids: a reader that follows Kids without remembering where it has been
// never ends.
func SelfKidsPDF() []byte {
	return Build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
	}, "")
}

// HugeCountPDF builds a one-page PDF whose page tree declares
// 2,147,483,647 pages: a reader that trusts /Count loops for ever.
func HugeCountPDF() []byte {
	stream := "BT /F1 12 Tf 72 720 Td (One real page) Tj ET\n"
	return Build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 2147483647 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		helvetica,
	}, "")
}

// onePage builds a PDF of one page whose content stream is stream (with
// the extra stream dictionary entries given), using Helvetica as /F1, and
// an Info dictionary with the title and the author "Test Author".
func onePage(title string, stream []byte, streamDict string) []byte {
	return Build([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(stream), streamDict, stream),
		helvetica,
		fmt.Sprintf("<< /Title (%s) /Author (Test Author) >>", title),
	}, "/Info 6 0 R")
}

// Build assembles a PDF from its objects, numbered from 1 (object 1 must
// be the catalog), with a correct cross-reference table; trailer holds
// extra trailer entries such as "/Info 6 0 R".
func Build(objs []string, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, xref)
	return b.Bytes()
}
