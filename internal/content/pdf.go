package content

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"webacq/internal/pdftext"
)

// ErrBadPDF reports a PDF that could not be read: broken, encrypted, or
// lying about its structure. Readings stopped by a limit match
// pdftext.ErrLimit instead, and those stopped by ctx match ctx.Err().
var ErrBadPDF = pdftext.ErrUnreadable

// PDF extracts the text of a PDF with the process's default reader (see
// PDFWith).
func PDF(ctx context.Context, body []byte) (*Document, error) {
	return PDFWith(ctx, pdftext.Default(), body)
}

// PDFWith extracts the text of a PDF with r, within ctx. Markdown is the
// text with a blank line between paragraphs and between pages; the title
// comes from the document information dictionary when present, else from
// the first line. A hostile document returns an error, never a panic or a
// hang past ctx.
func PDFWith(ctx context.Context, r *pdftext.Reader, body []byte) (*Document, error) {
	if len(body) == 0 {
		return nil, ErrEmpty
	}
	res, err := r.Read(ctx, body)
	if err != nil {
		return nil, fmt.Errorf("content: pdf: %w", err)
	}
	text := strings.TrimSpace(res.Text)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	doc := &Document{Markdown: text, Text: text, PageType: TypeArticle, Confidence: textConfidence(text)}
	doc.Metadata.Title = clean(res.Title)
	doc.Metadata.Author = clean(res.Author)
	if doc.Metadata.Title == "" {
		doc.Metadata.Title = firstLine(text)
	}
	return doc, nil
}
