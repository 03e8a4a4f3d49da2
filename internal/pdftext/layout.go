package pdftext

import (
	"sort"
	"strings"
)

// lineSpan is the share of the font size within which two baselines
// belong to one line: a superscript (raised about 0.4 of the size), a
// subscript, the raised A of the TeX logo, and a baseline that wobbles by
// a fraction of a point stay in their line, while lines, at least a font
// size apart, stay apart.
const lineSpan = 0.5

// layout turns a page's runs into text, the runs of each direction of
// writing apart, upright text first.
func layout(runs []run) string {
	var byRot [4][]run
	for _, r := range runs {
		byRot[r.rot] = append(byRot[r.rot], r)
	}
	var parts []string
	for _, rs := range byRot {
		if t := layoutLines(rs); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// layoutLines turns runs written in one direction into text: runs whose baselines lie within
// lineSpan of the font size of each other form a line, left to right,
// with a space where the gap between two runs passes wordGap of the font
// size; lines go top to bottom, and a gap between lines much larger than
// the usual line spacing starts a new paragraph.
func layoutLines(runs []run) string {
	type line struct {
		y, size float64 // the baseline and size of the line's largest run
		runs    []run
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].y > runs[j].y })
	var lines []*line
	for _, r := range runs {
		// Runs come down the page, so the line's baseline is never
		// below r's.
		if n := len(lines); n > 0 {
			l := lines[n-1]
			if l.y-r.y <= lineSpan*max(l.size, r.size, 1) {
				l.runs = append(l.runs, r)
				if r.size > l.size {
					l.y, l.size = r.y, r.size
				}
				continue
			}
		}
		lines = append(lines, &line{y: r.y, size: r.size, runs: []run{r}})
	}

	type text struct {
		y float64
		s string
	}
	var texts []text
	for _, l := range lines {
		sort.SliceStable(l.runs, func(i, j int) bool { return l.runs[i].x < l.runs[j].x })
		var b strings.Builder
		for i, r := range l.runs {
			if i > 0 {
				prev := l.runs[i-1]
				if r.x-prev.end > wordGap*max(r.size, prev.size, 1) {
					b.WriteByte(' ')
				}
			}
			b.WriteString(r.text)
		}
		if s := strings.Join(strings.Fields(b.String()), " "); s != "" {
			texts = append(texts, text{l.y, s})
		}
	}
	if len(texts) == 0 {
		return ""
	}
	var gaps []float64
	for i := 1; i < len(texts); i++ {
		if g := texts[i-1].y - texts[i].y; g > 0 {
			gaps = append(gaps, g)
		}
	}
	// The usual line spacing: the first quartile of the gaps, since
	// paragraph gaps are the larger ones.
	spacing := 0.0
	if len(gaps) > 0 {
		sort.Float64s(gaps)
		spacing = gaps[len(gaps)/4]
	}
	var b strings.Builder
	for i, t := range texts {
		if i > 0 {
			if spacing > 0 && texts[i-1].y-t.y > 1.5*spacing {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(t.s)
	}
	return b.String()
}
