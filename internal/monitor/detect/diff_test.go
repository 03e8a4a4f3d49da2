package detect

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	var a, b []string
	for i := range 20 {
		a = append(a, fmt.Sprintf("- item %d", i))
	}
	b = append(b, "- item new")
	b = append(b, a...)
	b[11] = "- item 10 changed"
	got := Diff(strings.Join(a, "\n"), strings.Join(b, "\n"))
	want := []string{
		"--- previous\n+++ current\n",
		"@@ -1,3 +1,4 @@\n+- item new\n - item 0\n - item 1\n - item 2\n",
		"@@ -8,7 +9,7 @@\n - item 7\n - item 8\n - item 9\n-- item 10\n+- item 10 changed\n - item 11\n",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("diff lacks %q:\n%s", w, got)
		}
	}
	if d := Diff("same\ntext", "same\ntext\n"); d != "" {
		t.Errorf("equal snapshots: %q", d)
	}
	if d := Diff("", "new"); d != "--- previous\n+++ current\n@@ -0,0 +1,1 @@\n+new\n" {
		t.Errorf("from empty: %q", d)
	}
}

func TestDiffBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "line %d changed\n", i)
	}
	d := Diff(a.String(), b.String())
	if len(d) > maxDiffOutput+len(diffTruncation) || !strings.HasSuffix(d, diffTruncation) {
		t.Errorf("diff of %d bytes, suffix %q", len(d), d[len(d)-30:])
	}
}
