// Package contenttest builds documents for tests of the content pipeline
// and of the services that fetch documents.
package contenttest

import (
	"fmt"
	"strings"
)

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
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", stream.Len(), stream.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Title (%s) /Author (Test Author) >>", title),
	}
	var b strings.Builder
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
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}
