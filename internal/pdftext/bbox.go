package pdftext

import (
	"bufio"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// bboxResult is a Result and the number of words read.
type bboxResult struct {
	Result
	words int
}

// parseBBox reads the XHTML that `pdftotext -bbox-layout` writes: the
// document information in <head>, then pages of flows of blocks of lines
// of words, one element per line. A block becomes a paragraph, its lines
// joined by "\n", so the paragraphs poppler found survive (plain
// pdftotext output separates flows only). Words of a line are joined by
// a space unless their boxes touch: poppler also ends a word where the
// font changes ("command" in typewriter type, then "." in roman; a
// footnote mark after a word), and its text output puts no space there.
//
// It keeps at most maxText bytes of text, reading the stream as it comes
// and stopping with a *LimitError past that, so that neither a huge
// output nor one endless line is ever held whole.
func parseBBox(rd io.Reader, maxText int64) (bboxResult, error) {
	var res bboxResult
	tooLarge := &LimitError{Message: fmt.Sprintf("its text is larger than the %d MB limit", maxText>>20)}
	maxLine := int(min(maxText, 1<<30)) + 64<<10
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)

	var (
		out     strings.Builder
		para    []string        // lines of the current block
		line    strings.Builder // the current line
		last    box             // the box of the line's last word
		kept    int64           // bytes of text kept so far
		pending string          // an element whose closing tag is on a later line
		closer  string          // that closing tag
	)
	endLine := func() {
		if line.Len() > 0 {
			para = append(para, line.String())
			line.Reset()
		}
	}
	endBlock := func() {
		endLine()
		if len(para) > 0 {
			if out.Len() > 0 {
				out.WriteString("\n\n")
			}
			out.WriteString(strings.Join(para, "\n"))
			para = para[:0]
		}
	}
	for sc.Scan() {
		l := sc.Text()
		if pending != "" {
			pending += "\n" + l
			if len(pending) > maxLine {
				return res, tooLarge
			}
			if !strings.Contains(l, closer) {
				continue
			}
			l, pending = pending, ""
		}
		t := strings.TrimLeft(l, " \t")
		if c := openCloser(t); c != "" && !strings.Contains(t, c) {
			pending, closer = t, c
			continue
		}
		switch {
		case strings.HasPrefix(t, "<word"):
			w := ligatures.Replace(strings.Join(strings.Fields(html.UnescapeString(between(t, ">", "</word>"))), " "))
			if w == "" {
				continue
			}
			kept += int64(len(w)) + 1
			if kept > maxText {
				return res, tooLarge
			}
			b, ok := wordBox(t)
			if line.Len() > 0 && !(ok && last.ok && touching(last, b)) {
				line.WriteByte(' ')
			}
			line.WriteString(w)
			last = b
			res.words++
		case strings.HasPrefix(t, "<line"), strings.HasPrefix(t, "</line>"):
			endLine()
		case strings.HasPrefix(t, "<block"), strings.HasPrefix(t, "</block>"),
			strings.HasPrefix(t, "<page"), strings.HasPrefix(t, "</flow>"):
			endBlock()
		case strings.HasPrefix(t, "<title>"):
			res.Title = html.UnescapeString(between(t, "<title>", "</title>"))
		case strings.HasPrefix(t, `<meta name="Author"`):
			res.Author = html.UnescapeString(between(t, `content="`, `"/>`))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return res, tooLarge
		}
		return res, fmt.Errorf("pdftext: reading pdftotext output: %w", err)
	}
	endBlock()
	res.Text = out.String()
	return res, nil
}

// joinGap is the share of the font size under which the gap between two
// words of a line is no space. poppler's own threshold is 3 % of the font
// size (maxCharSpacing in TextOutputDev.cc); a word box is about 1.2 font
// sizes high, which makes this about the same. Spaces between words are
// 15 % of the font size or more even in tightly set lines.
const joinGap = 0.03

// box is a word's bounding box as pdftotext writes it.
type box struct {
	x0, y0, x1, y1 float64
	ok             bool // the four coordinates were read
}

// wordBox reads the coordinates of a <word> element.
func wordBox(t string) (box, bool) {
	var b box
	for _, c := range []struct {
		name string
		v    *float64
	}{{"xMin", &b.x0}, {"yMin", &b.y0}, {"xMax", &b.x1}, {"yMax", &b.y1}} {
		v, err := strconv.ParseFloat(attr(t, c.name), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return box{}, false
		}
		*c.v = v
	}
	b.ok = b.x1 >= b.x0 && b.y1 >= b.y0
	return b, b.ok
}

// attr returns the value of the attribute name in the opening tag t.
func attr(t, name string) string {
	end := strings.IndexByte(t, '>')
	if end < 0 {
		end = len(t)
	}
	_, v, ok := strings.Cut(t[:end], " "+name+`="`)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, `"`)
	return v
}

// touching reports whether b, the next word of a line after a, starts
// where a ends. The line runs along the axis on which the two words lie
// further apart (poppler writes rotated lines with page-aligned boxes);
// the gap along it is compared to the words' size across it.
func touching(a, b box) bool {
	dx := math.Abs((b.x0 + b.x1 - a.x0 - a.x1) / 2)
	dy := math.Abs((b.y0 + b.y1 - a.y0 - a.y1) / 2)
	gap := max(b.x0-a.x1, a.x0-b.x1)
	size := max(a.y1-a.y0, b.y1-b.y0)
	if dy > dx {
		gap = max(b.y0-a.y1, a.y0-b.y1)
		size = max(a.x1-a.x0, b.x1-b.x0)
	}
	return gap < joinGap*size
}

// openCloser is the closing tag an element on line t must reach before it
// can be read ("" for elements read from their opening tag alone).
func openCloser(t string) string {
	switch {
	case strings.HasPrefix(t, "<word"):
		return "</word>"
	case strings.HasPrefix(t, "<title>"):
		return "</title>"
	case strings.HasPrefix(t, "<meta "):
		return "/>"
	}
	return ""
}

// between returns what lies in s after the first open and before the last
// close, or "".
func between(s, open, close string) string {
	i := strings.Index(s, open)
	j := strings.LastIndex(s, close)
	if i < 0 || j < i+len(open) {
		return ""
	}
	return s[i+len(open) : j]
}
