package content

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
)

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
	doc := &Document{Markdown: text, Text: text, Metadata: Metadata{Title: firstLine(text)}}
	if text != "" {
		// The whole text is the content: an article, as sure as its
		// words read as words.
		doc.PageType = TypeArticle
	}
	doc.Confidence = textConfidence(text)
	return doc
}

// JSON renders a JSON body indented inside a ```json block. Invalid JSON
// is returned as plain text.
func JSON(body []byte) *Document {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(body), "", "  "); err != nil {
		return PlainText(body)
	}
	text := out.String()
	return &Document{Markdown: "```json\n" + text + "\n```", Text: text, Confidence: -1}
}

// XML renders an XML body (feeds, sitemaps, APIs) in a ```xml block and
// collects its character data as Text. An RSS/Atom <title> becomes the title.
func XML(body []byte) *Document {
	src := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	doc := &Document{Markdown: "```xml\n" + src + "\n```", Confidence: -1}
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
