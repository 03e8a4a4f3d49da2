package pdftext

import (
	"bufio"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
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
			w := spellLigatures(strings.Join(strings.Fields(html.UnescapeString(between(t, ">", "</word>"))), " "))
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

// boxAttrs are the attributes of a <word> element that hold its box, in
// the order of box's fields and of pdftotext's output.
var boxAttrs = [4]string{` xMin="`, ` yMin="`, ` xMax="`, ` yMax="`}

// wordBox reads the coordinates of a <word> element.
func wordBox(t string) (box, bool) {
	end := strings.IndexByte(t, '>')
	if end < 0 {
		return box{}, false
	}
	t = t[:end]
	var v [4]float64
	for i, a := range boxAttrs {
		_, rest, ok := strings.Cut(t, a)
		if !ok {
			return box{}, false
		}
		num, after, ok := strings.Cut(rest, `"`)
		if !ok {
			return box{}, false
		}
		if v[i], ok = coord(num); !ok {
			return box{}, false
		}
		t = after
	}
	b := box{x0: v[0], y0: v[1], x1: v[2], y1: v[3]}
	b.ok = b.x1 >= b.x0 && b.y1 >= b.y0
	return b, b.ok
}

// coord reads a coordinate as pdftotext prints it ("%f": an optional
// minus, digits, a point and digits), faster than strconv, which took
// half the time of reading a long document's words.
func coord(s string) (float64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 30 {
		return 0, false
	}
	whole, frac, scale := 0.0, 0.0, 1.0
	dot, digits := false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' && dot:
			frac, scale = frac*10+float64(c-'0'), scale*10
			digits++
		case c >= '0' && c <= '9':
			whole = whole*10 + float64(c-'0')
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	v := whole + frac/scale
	if neg {
		v = -v
	}
	return v, true
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
