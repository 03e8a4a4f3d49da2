package main

import (
	"context"
	"fmt"

	"webacq/internal/primitive"
)

// mapSite runs the map primitive in process and prints one URL per line,
// or the whole payload as JSON.
func (m *Main) mapSite(ctx context.Context, c mapCmd) error {
	prims, err := m.primitives(nil)
	if err != nil {
		return err
	}
	if prims.Browser != nil {
		defer prims.Browser.Close()
	}
	limit := c.Limit
	res, err := prims.Map(ctx, primitive.MapRequest{URL: c.URL, Limit: &limit})
	if err != nil {
		return err
	}
	if c.JSON {
		return m.printJSON(res)
	}
	for _, l := range res.Links {
		if _, err := fmt.Fprintln(m.Stdout, l.URL); err != nil {
			return err
		}
	}
	if res.Truncated {
		fmt.Fprintf(m.Stderr, "map: %d URLs listed, %d found before the limit stopped the map; raise --limit for more\n", res.Returned, res.Total)
	}
	return nil
}
