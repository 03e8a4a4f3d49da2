package detect

import (
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Bounds of a diff.
const (
	diffTimeout    = 200 * time.Millisecond // the diff gives a coarser answer past it
	maxDiffInput   = 2 << 20                // bytes of each snapshot compared
	maxDiffOutput  = 64 << 10               // bytes of diff returned
	diffContext    = 3                      // unchanged lines around a change
	diffTruncation = "\n… diff truncated\n"
)

// Diff returns a unified diff of two snapshots' markdown, line by line
// with three lines of context, at most maxDiffOutput bytes. Equal
// snapshots give "".
func Diff(prevMarkdown, curMarkdown string) string {
	a, b := lines(truncate(prevMarkdown, maxDiffInput)), lines(truncate(curMarkdown, maxDiffInput))
	if a == b {
		return ""
	}
	ops := lineOps(a, b)
	var out strings.Builder
	out.WriteString("--- previous\n+++ current\n")
	for i := 0; i < len(ops); {
		// Find the next change and the hunk around it.
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(len(ops), end+diffContext)
				break
			}
			end = run
		}
		writeHunk(&out, ops, start, end)
		if out.Len() > maxDiffOutput {
			return truncate(out.String(), maxDiffOutput) + diffTruncation
		}
		i = end
	}
	return out.String()
}

// lineOp is one line of the diff: ' ' kept, '-' removed, '+' added;
// a and b are the line's numbers (from 1) in the old and new text.
type lineOp struct {
	kind rune
	text string
	a, b int
}

// lines ends a non-empty text with a newline, so that the last line
// compares equal to the same line followed by others.
func lines(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// lineOps diffs a and b, texts of newline-terminated lines, line by line.
func lineOps(a, b string) []lineOp {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var ops []lineOp
	na, nb := 1, 1
	for _, d := range diffs {
		if d.Text == "" {
			continue
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(d.Text, "\n"), "\n") {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				ops = append(ops, lineOp{' ', line, na, nb})
				na++
				nb++
			case diffmatchpatch.DiffDelete:
				ops = append(ops, lineOp{'-', line, na, nb})
				na++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, lineOp{'+', line, na, nb})
				nb++
			}
		}
	}
	return ops
}

// writeHunk writes ops[start:end] as one hunk.
func writeHunk(out *strings.Builder, ops []lineOp, start, end int) {
	la, lb := 0, 0
	for _, op := range ops[start:end] {
		if op.kind != '+' {
			la++
		}
		if op.kind != '-' {
			lb++
		}
	}
	fa, fb := ops[start].a, ops[start].b
	if la == 0 {
		fa--
	}
	if lb == 0 {
		fb--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", fa, la, fb, lb)
	for _, op := range ops[start:end] {
		out.WriteRune(op.kind)
		out.WriteString(op.text)
		out.WriteByte('\n')
	}
}
