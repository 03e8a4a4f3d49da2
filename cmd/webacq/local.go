package main

import (
	"context"
	"encoding/json"
	"fmt"

	"webacq/internal/primitive"
)

// fetch runs the fetch primitive in process and prints the page.
func (m *Main) fetch(ctx context.Context, c fetchCmd) error {
	prims, err := m.primitives(nil)
	if err != nil {
		return err
	}
	if prims.Browser != nil {
		defer prims.Browser.Close()
	}
	main := !c.FullPage
	req := primitive.FetchRequest{URL: c.URL, Tier: c.Tier, OnlyMainContent: &main, Timeout: c.Timeout}
	switch c.Format {
	case "json":
		req.Formats = []string{primitive.FormatMarkdown, primitive.FormatLinks}
	case "markdown":
		req.Formats = []string{primitive.FormatMarkdown}
	default:
		req.Formats = []string{c.Format}
	}
	if err := req.Normalize(prims.HTTP.CheckURL, prims.Browser != nil); err != nil {
		return err
	}
	res, err := prims.Fetch(ctx, "", req)
	if err != nil {
		return err
	}
	switch c.Format {
	case "json":
		return m.printJSON(res)
	case "text":
		_, err = fmt.Fprintln(m.Stdout, *res.Text)
	case "html":
		_, err = fmt.Fprintln(m.Stdout, *res.HTML)
	default:
		_, err = fmt.Fprintln(m.Stdout, *res.Markdown)
	}
	return err
}

func (m *Main) printJSON(v any) error {
	enc := json.NewEncoder(m.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
