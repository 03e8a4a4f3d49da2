package content

import (
	"strings"
	"testing"
)

// TestNormDate: the forms pages write publication dates in (each seen on
// the corpora's pages) come out in one form where the day is not in
// doubt, keep the page's own offset, stay as written where the day is
// ambiguous, and are no date where they hold none.
func TestNormDate(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"2021-11-01T10:52:50+01:00", "2021-11-01T10:52:50+01:00"},
		{"2019-01-03T07:00:02.000Z", "2019-01-03T07:00:02Z"},
		{"2015-03-10T08:05:41-07:00", "2015-03-10T08:05:41-07:00"},
		{"2013-09-29", "2013-09-29"},
		{" 2023-1-26 ", "2023-01-26"},
		{"2017-01-18T23:00:00-0800", "2017-01-18T23:00:00-08:00"},
		{"2015-04-08T12:46:00", "2015-04-08T12:46:00"},
		{"2016-02-01 01:28:49", "2016-02-01T01:28:49"},
		{"2011-02-11 23:49:17Z", "2011-02-11T23:49:17Z"},
		{"2018-11-16T03:00+00:00", "2018-11-16T03:00:00+00:00"},
		{"2023-12-20T20:09:56.0000000Z", "2023-12-20T20:09:56Z"},
		{"2015-07-10 09:53:00 -0400", "2015-07-10T09:53:00-04:00"},
		{"2026-02-21 12:16:43 +0100 +0100", "2026-02-21T12:16:43+01:00"},
		{"2022-05-04T03:00:00 UTC", "2022-05-04T03:00:00Z"},
		{"2025-12-17UTC07:30:00+00:00", "2025-12-17"},
		{"2022-05-04-0305:49:00-10800", "2022-05-04"},
		{"1651035600", "2022-04-27T05:00:00Z"},
		{"1651035600000", "2022-04-27T05:00:00Z"},
		{"Tue, 4 May 2021 19:18:00 +0200", "2021-05-04T19:18:00+02:00"},
		{"Wed, 09 Jun 2021 10:18:14 GMT", "2021-06-09T10:18:14Z"},
		{"Jan 17, 2025", "2025-01-17"},
		{"December 2, 2025", "2025-12-02"},
		{"Dec 19th 2025", "2025-12-19"},
		{"on Friday December 19, 2025 @08:00PM", "2025-12-19"},
		{"February 24, 2006 02:01am", "2006-02-24"},
		{"4 May 2021", "2021-05-04"},
		{"13/11/2025 09:21:40", "2025-11-13"},
		{"11.11.2021", "2021-11-11"},
		{"05.11.2021", "2021-11-05"},
		{"12/28/2023", "2023-12-28"},
		// The day is ambiguous: as written.
		{"10/05/2022 05:22 pm", "10/05/2022 05:22 pm"},
		{"02-12-2025", "02-12-2025"},
		{"01/07/16", "01/07/16"},
		{"Thu, 09/25/2025 - 11:38", "Thu, 09/25/2025 - 11:38"},
		{"15 de marzo de 2024", "15 de marzo de 2024"},
		// No date.
		{"Mo-Su 08:00-20:00", ""},
		{"0001-01-01T00:00:00Z", ""},
		{"2021-02-30", ""},
		{"yesterday", ""},
		{"", ""},
		{strings.Repeat("2021 ", 30), ""},
	} {
		got, ok := normDate(tt.in)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("normDate(%q) = %q, %t; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// TestPublishedTimeSources: the first source that holds a date wins; a
// content system's empty date or a value that is no date gives way to
// the next source.
func TestPublishedTimeSources(t *testing.T) {
	page := func(head string) string {
		return `<html><head>` + head + `</head><body><article><h1>Results</h1><p>` +
			strings.Repeat("Acme reported its third quarter results today. ", 20) + `</p></article></body></html>`
	}
	for _, tt := range []struct{ name, head, want string }{
		{"meta as ISO with a space", `<meta property="article:published_time" content="2016-02-01 01:28:49">`, "2016-02-01T01:28:49"},
		{"empty date gives way", `<meta property="article:published_time" content="0001-01-01T00:00:00Z">` +
			`<script type="application/ld+json">{"@type":"NewsArticle","headline":"Results","datePublished":"2025-11-03T08:00:00-05:00"}</script>`,
			"2025-11-03T08:00:00-05:00"},
		{"hours give way", `<meta name="date" content="Mo-Su 08:00-20:00"><meta name="pubdate" content="Nov 3, 2025">`, "2025-11-03"},
		{"none", `<meta name="date" content="Mo-Su 08:00-20:00">`, ""},
	} {
		d, err := HTML([]byte(page(tt.head)), "https://example.com/news/results", Options{OnlyMainContent: true})
		if err != nil {
			t.Fatal(err)
		}
		if d.Metadata.PublishedTime != tt.want {
			t.Errorf("%s: publishedTime %q, want %q", tt.name, d.Metadata.PublishedTime, tt.want)
		}
	}
}

// FuzzNormDate: any value gives a date of at most maxDateBytes, and a
// date read again is the same date.
func FuzzNormDate(f *testing.F) {
	for _, s := range []string{"2021-11-01T10:52:50+01:00", "2016-02-01 01:28:49", "1651035600", "Tue, 4 May 2021 19:18:00 +0200",
		"Dec 19th 2025", "13/11/2025 09:21:40", "10/05/2022", "Mo-Su 08:00-20:00", "2022-05-04-0305:49:00-10800", "0001-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := normDate(v)
		if !ok {
			if d != "" {
				t.Fatalf("normDate(%q) = %q without a date", v, d)
			}
			return
		}
		if d == "" || len(d) > maxDateBytes {
			t.Fatalf("normDate(%q) = %q", v, d)
		}
		if again, ok := normDate(d); !ok || again != d {
			t.Fatalf("normDate(%q) = %q, then %q (%t)", v, d, again, ok)
		}
	})
}
