package pdftext

import (
	"bufio"
	"errors"
	"fmt"
	"html"
	"io"
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
// joined by "\n" and its words by a space, so the paragraphs poppler
// found survive (plain pdftotext output separates flows only).
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
		para    []string // lines of the current block
		line    []string // words of the current line
		kept    int64    // bytes of text kept so far
		pending string   // an element whose closing tag is on a later line
		closer  string   // that closing tag
	)
	endLine := func() {
		if len(line) > 0 {
			para = append(para, strings.Join(line, " "))
			line = line[:0]
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
			w := strings.Join(strings.Fields(html.UnescapeString(between(t, ">", "</word>"))), " ")
			if w == "" {
				continue
			}
			kept += int64(len(w)) + 1
			if kept > maxText {
				return res, tooLarge
			}
			line = append(line, w)
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
