package content

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// ErrBadPDF reports a PDF that could not be read.
var ErrBadPDF = errors.New("content: unreadable pdf")

// PDF extracts the text of a PDF. Markdown is the text with a blank line
// between paragraphs (a vertical gap larger than the usual line spacing)
// and between pages; the title comes from the document information
// dictionary when present. A malformed PDF returns an error wrapping
// ErrBadPDF, never a panic.
func PDF(body []byte) (doc *Document, err error) {
	if len(body) == 0 {
		return nil, ErrEmpty
	}
	// The PDF reader panics on many malformed inputs.
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: %v", ErrBadPDF, r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPDF, err)
	}
	var pages []string
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		rows, err := p.GetTextByRow()
		if err != nil {
			return nil, fmt.Errorf("%w: page %d: %v", ErrBadPDF, i, err)
		}
		if t := pageText(rows); t != "" {
			pages = append(pages, t)
		}
	}
	text := strings.Join(pages, "\n\n")
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	doc = &Document{Markdown: text, Text: text}
	info := r.Trailer().Key("Info")
	doc.Metadata.Title = clean(info.Key("Title").Text())
	doc.Metadata.Author = clean(info.Key("Author").Text())
	if doc.Metadata.Title == "" {
		doc.Metadata.Title = firstLine(text)
	}
	return doc, nil
}

// pageText joins rows top to bottom. A gap between rows much larger than
// the spacing gap starts a new paragraph.
func pageText(rows pdf.Rows) string {
	type line struct {
		y    float64
		text string
	}
	var lines []line
	for _, row := range rows {
		var b strings.Builder
		for _, t := range row.Content {
			b.WriteString(t.S)
		}
		if s := collapse(b.String()); s != "" {
			lines = append(lines, line{float64(row.Position), s})
		}
	}
	if len(lines) == 0 {
		return ""
	}
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		if g := math.Abs(lines[i-1].y - lines[i].y); g > 0 {
			gaps = append(gaps, g)
		}
	}
	// The usual line spacing: the first quartile of the gaps, since
	// paragraph gaps are the larger ones.
	spacing := 0.0
	if len(gaps) > 0 {
		sorted := append([]float64(nil), gaps...)
		sort.Float64s(sorted)
		spacing = sorted[len(sorted)/4]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			if spacing > 0 && math.Abs(lines[i-1].y-l.y) > 1.5*spacing {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(l.text)
	}
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		return ""
	}
	return s
}

// PlainText wraps a text/plain body: the markdown is the text itself.
func PlainText(body []byte) *Document {
	text := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	return &Document{Markdown: text, Text: text, Metadata: Metadata{Title: firstLine(text)}}
}

// JSON renders a JSON body indented inside a ```json block. Invalid JSON
// is returned as plain text.
func JSON(body []byte) *Document {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(body), "", "  "); err != nil {
		return PlainText(body)
	}
	text := out.String()
	return &Document{Markdown: "```json\n" + text + "\n```", Text: text}
}

// XML renders an XML body (feeds, sitemaps, APIs) in a ```xml block and
// collects its character data as Text. An RSS/Atom <title> becomes the title.
func XML(body []byte) *Document {
	src := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	doc := &Document{Markdown: "```xml\n" + src + "\n```"}
	dec := xml.NewDecoder(bytes.NewReader(body))
	dec.Strict = false
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var b strings.Builder
	depth, titleDepth := 0, -1
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Local == "title" && doc.Metadata.Title == "" && depth <= 3 {
				titleDepth = depth
			}
		case xml.EndElement:
			if depth == titleDepth {
				titleDepth = -1
			}
			depth--
		case xml.CharData:
			s := collapse(string(t))
			if s == "" {
				continue
			}
			if titleDepth > 0 && doc.Metadata.Title == "" {
				doc.Metadata.Title = s
			}
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	doc.Text = strings.TrimSpace(b.String())
	return doc
}
