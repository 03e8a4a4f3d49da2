package wire_test

import (
	"strings"
	"testing"
	"time"

	"webacq/internal/channel/wire"
)

// TestFeedEntitiesAndDepth: a feed that declares entities nine levels
// deep (a billion laughs: 10^9 "lol" if expanded) is read with the
// entities left unexpanded, and a feed of items nested 200,000 elements
// deep is read in time linear in its size; neither grows past its bytes.
func TestFeedEntitiesAndDepth(t *testing.T) {
	var dtd strings.Builder
	dtd.WriteString(`<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY lol0 "lol">`)
	for i := 1; i <= 9; i++ {
		dtd.WriteString("<!ENTITY lol" + string(rune('0'+i)) + ` "` + strings.Repeat("&lol"+string(rune('0'+i-1))+";", 10) + `">`)
	}
	dtd.WriteString("]>")
	date := "Thu, 05 Nov 2026 21:05:00 +0000"
	deep := 200000
	for name, body := range map[string]string{
		"billion laughs": dtd.String() + rss(rssItem("a", "Acme &lol9; news", date, "&lol9;")),
		"nested 200,000 deep": rss(rssItem("a", "Acme news", date, "x") +
			"<item><title>Deep</title><guid>d</guid>" + strings.Repeat("<x>", deep) + strings.Repeat("</x>", deep) + "</item>"),
		"description nested 200,000 deep": rss("<item><title>Deep</title><guid>d</guid><description>" +
			strings.Repeat("<b>", deep) + "bottom" + strings.Repeat("</b>", deep) + "</description></item>"),
	} {
		start := time.Now()
		items, err := wire.Parse([]byte(body))
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: %v", name, d)
		}
		if err != nil || len(items) == 0 {
			t.Errorf("%s: %d items, %v; want the items read", name, len(items), err)
			continue
		}
		for _, it := range items {
			for _, s := range append([]string{it.ID, it.Title, it.Link, it.Summary}, it.Categories...) {
				if len(s) > len(body) {
					t.Errorf("%s: a string of %d bytes from a feed of %d", name, len(s), len(body))
				}
			}
		}
		if name == "billion laughs" && (!strings.Contains(items[0].Title, "lol9") || strings.Contains(items[0].Title, "lollol")) {
			t.Errorf("billion laughs: title %.100q, want the entity left as it is", items[0].Title)
		}
	}
}
