package main

import (
	"context"
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"

	"webacq/internal/primitive"
)

// gyre crawls in process, with a progress bar on stderr, and prints the
// pages on stdout.
func (m *Main) gyre(ctx context.Context, c gyreCmd) error {
	prims, err := m.primitives(nil)
	if err != nil {
		return err
	}
	if prims.Browser != nil {
		defer prims.Browser.Close()
	}
	req := primitive.GyreRequest{URL: c.URL, MaxPages: &c.MaxPages, MaxDepth: &c.MaxDepth, Tier: c.Tier, Timeout: &c.Timeout,
		CrawlEntireDomain: c.CrawlEntireDomain}
	var progress func(done, total int)
	if !c.Quiet {
		bar := progressbar.NewOptions(c.MaxPages, progressbar.OptionSetWriter(m.Stderr),
			progressbar.OptionSetDescription("crawling"), progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		progress = func(done, total int) {
			bar.ChangeMax(max(total, 1))
			bar.Set(done)
		}
		defer bar.Finish()
	}
	res, err := prims.Gyre(ctx, "", req, progress)
	if err != nil {
		return err
	}
	if c.Format == "json" {
		return m.printJSON(res)
	}
	for i, p := range res.Pages {
		if i > 0 {
			fmt.Fprintln(m.Stdout, "\n---")
		}
		fmt.Fprintf(m.Stdout, "<!-- %s (%d, via %s) -->\n\n%s\n", p.URL, p.StatusCode, p.Via, p.Markdown)
	}
	for _, e := range res.Errors {
		fmt.Fprintf(m.Stderr, "webacq: %s: %s\n", e.URL, e.Error)
	}
	return nil
}
