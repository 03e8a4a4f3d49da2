package main

import "testing"

func TestDay(t *testing.T) {
	for in, want := range map[string]string{
		"2019-01-03T07:00:02+13:00":       "2019-01-03", // the day as written, not UTC's
		"2017-11-03 03:01:00.000000":      "2017-11-03",
		"2025/12/18":                      "2025-12-18",
		"20240509":                        "2024-05-09",
		"13.11.2025":                      "2025-11-13",
		"Mon, 02 Jan 2006 15:04:05 -0700": "2006-01-02",
		"December 2, 2025":                "2025-12-02",
		"Jun 24, 2025":                    "2025-06-24",
		"2 January 2006":                  "2006-01-02",
		"01/02/2006":                      "", // ambiguous
		"2015-11":                         "",
		"":                                "",
		"2025-13-01":                      "",
	} {
		if got, _ := Day(in); got != want {
			t.Errorf("Day(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormAndAuthors(t *testing.T) {
	if Norm("  It’s  a  “Test” — OK ") != Norm(`it's a "test" - ok`) {
		t.Error("Norm does not fold quotes, dashes, case and space")
	}
	if !AuthorContains("Ana Sandoiu", "By Ana Sandoiu") || AuthorContains("", "x") || AuthorExact("", "") {
		t.Error("AuthorContains / AuthorExact")
	}
}
