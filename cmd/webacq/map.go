package main

import "context"

// mapSite is wired once the map primitive lands.
func (m *Main) mapSite(ctx context.Context, c mapCmd) error { return nil }
