package pdftext

import (
	"math"
	"sort"
	"strings"
)

// layout turns a page's runs into text: runs on the same baseline form a
// line, left to right, with a space where the gap between two runs passes
// wordGap of the font size; lines go top to bottom, and a gap between
// lines much larger than the usual line spacing starts a new paragraph.
func layout(runs []run) string {
	type line struct {
		y    float64
		runs []run
	}
	rows := map[int64]*line{}
	for _, r := range runs {
		k := int64(math.Round(r.y))
		if rows[k] == nil {
			rows[k] = &line{y: float64(k)}
		}
		rows[k].runs = append(rows[k].runs, r)
	}
	lines := make([]*line, 0, len(rows))
	for _, l := range rows {
		lines = append(lines, l)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].y > lines[j].y })

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
