package fetch

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/temoto/robotstxt"
)

// FuzzRobots: robotsLimit of any robots.txt keeps one directive a line and
// no more than the body (a newline a line added), is idempotent (the part
// kept is within budget as it stands), and weighs no more than its bytes,
// robotsMaxRules rules and robotsMaxPatternBytes of patterns can; the
// parser then reads the part kept and answers the same questions the same
// way twice, with sitemaps no longer than the body.
func FuzzRobots(f *testing.F) {
	var agents strings.Builder
	for i := range 40 {
		fmt.Fprintf(&agents, "User-agent: bot%d\n", i)
	}
	agents.WriteString("User-agent: *\n")
	for i := range 40 {
		fmt.Fprintf(&agents, "Disallow: /r%d/\n", i)
	}
	for _, seed := range []string{
		"User-agent: *\nDisallow: /private/\nAllow: /private/ok\nCrawl-delay: 2\nSitemap: https://e.com/sitemap.xml\n",
		"\ufeffUser-agent: *  # all\nDisallow: /a Disallow /b\nDisallow:/c:d\nDisallow /e:f\n" +
			"  # comment\n\nSitemap: http://h/s.xml extra\nAllow: #x\n: odd\n",
		"User-agent: webacq\r\nDisallow: /*.pdf$\r\nDisallow: /a*b*c*d*e*f$\rUser-agent: *\rDisallow:\r",
		"User-agent: a\nUser-agent: b\n\nUser-agent: c\nCrawl-delay: -1\nCrawl-delay: 1e308\nDisallow: /\n",
		"Disallow: /before-any-agent\nUser-agent:\nAllow: /\nSitemap:\nSitemap: /relative.xml\n",
		"Disallow: /" + strings.Repeat("*a", 200) + "$\n",
		agents.String(),
		"<html><body>Not found</body></html>",
		"\x00\xff\v\t:\n::\n#\n\v",
		"",
	} {
		f.Add([]byte(seed))
	}
	paths := []string{"/", "/private/x", "/private/ok", "/a.pdf", "/r3/page", "/?q=1"}
	f.Fuzz(func(t *testing.T, body []byte) {
		limited, weight := robotsLimit(body)
		if len(limited) > len(body)+1 {
			t.Fatalf("kept %d bytes of %d", len(limited), len(body))
		}
		lines := 0
		for _, line := range bytes.SplitAfter(limited, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			lines++
			line = bytes.TrimSuffix(line, []byte("\n"))
			if _, _, end := robotsDirective(line); end == 0 || end != len(line) || bytes.ContainsRune(line, '\r') {
				t.Fatalf("kept line %q is not one directive", line)
			}
		}
		again, weight2 := robotsLimit(limited)
		if !bytes.Equal(again, limited) || weight2 != weight {
			t.Fatalf("robotsLimit not idempotent: %q (%d) then %q (%d)", limited, weight, again, weight2)
		}
		if weight < 0 || weight > robotsWeight(len(limited), robotsMaxRules, int64(lines), robotsMaxPatternBytes) {
			t.Fatalf("weight %d for %d bytes of %d lines", weight, len(limited), lines)
		}

		data, err := robotstxt.FromBytes(limited)
		if err != nil {
			return
		}
		data2, _ := robotstxt.FromBytes(limited)
		for _, agent := range []string{"webacq", "bot3", "*"} {
			for _, p := range paths {
				if a, b := data.TestAgent(p, agent), data2.TestAgent(p, agent); a != b {
					t.Fatalf("TestAgent(%q, %q) = %v then %v", p, agent, a, b)
				}
			}
			if a, b := data.FindGroup(agent).CrawlDelay, data2.FindGroup(agent).CrawlDelay; a != b {
				t.Fatalf("crawl delay %v then %v", a, b)
			}
		}
		if !reflect.DeepEqual(data.Sitemaps, data2.Sitemaps) {
			t.Fatalf("sitemaps %q then %q", data.Sitemaps, data2.Sitemaps)
		}
		for _, s := range data.Sitemaps {
			if len(s) > len(body) {
				t.Fatalf("sitemap %q from %d bytes", s, len(body))
			}
		}
	})
}
