package main

import (
	"strings"
	"testing"
)

func TestWindowsFindsTheReferenceRun(t *testing.T) {
	got := "Menu Home Shop\nThe Wool Runner\nSoft merino wool upper\nYou may also like\nSocks $12"
	want := "The Wool Runner\nSoft merino wool upper"
	best, from, to, lines, head, tail := windows(got, want, 150)
	if best != 1 || from != 1 || to != 3 || lines != 5 {
		t.Errorf("windows = %v, lines %d-%d of %d; want 1, lines 1-3 of 5", best, from, to, lines)
	}
	if head >= 1 || tail >= 1 || head <= 0 || tail <= 0 {
		t.Errorf("head %v, tail %v: want both in (0, 1)", head, tail)
	}
	if b, _, _, _, _, _ := windows("some text", "", 150); b != 1 {
		t.Errorf("empty reference: best %v, want 1 (the empty run)", b)
	}
}

func TestMarkKeepsTextAndNumbersElements(t *testing.T) {
	out := string(mark([]byte("<p>One <b>two</b></p>")))
	if !strings.Contains(out, `data-p3="`) || !strings.Contains(out, "One <b") {
		t.Errorf("mark: %s", out)
	}
}
