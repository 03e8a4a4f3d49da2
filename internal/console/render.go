package console

import (
	"encoding/json"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"webacq/internal/model"
)

// funcs are the helpers the templates use.
func (c *Console) funcs() template.FuncMap {
	return template.FuncMap{
		"static": func(name string) string {
			return "/console/static/" + name + "?v=" + c.assets[name].version
		},
		"pathEscape": url.PathEscape,
		// when is a time in full (UTC), ago the same from now, for a
		// glance; both take a time or a *time.Time.
		"when": func(v any) string {
			t, ok := timeOf(v)
			if !ok {
				return "never"
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"ago": func(v any) string {
			t, ok := timeOf(v)
			if !ok {
				return "never"
			}
			return ago(c.Store.Now(), t)
		},
		// stamp is a time in a table row: short, the full time in its title.
		"stamp": func(v any) string {
			t, _ := timeOf(v)
			return t.UTC().Format("Jan 2 15:04:05")
		},
		"payloadOutcome": func(raw json.RawMessage) string {
			var p struct {
				Outcome string `json:"outcome"`
			}
			json.Unmarshal(raw, &p)
			return p.Outcome
		},
		"iso": func(v any) string {
			t, _ := timeOf(v)
			return t.UTC().Format(time.RFC3339)
		},
		"tone": tone,
		"score": func(f *float64) string {
			if f == nil {
				return "—"
			}
			return strconv.FormatFloat(*f, 'f', 0, 64)
		},
		"cell":        cell,
		"channelName": channelName,
		"checked":     checked,
		"join":        strings.Join,
		"lines":       func(l []string) string { return strings.Join(l, "\n") },
		"num":         func(n int64) string { return group(n) },
		"pretty": func(raw json.RawMessage) string {
			var v any
			if json.Unmarshal(raw, &v) != nil {
				return string(raw)
			}
			b, _ := json.MarshalIndent(v, "", "  ")
			return string(b)
		},
		"plural": func(n any, one, many string) string {
			if n == 1 || n == int64(1) {
				return one
			}
			return many
		},
		"changeSummary": changeSummary,
		// dict passes several values to a partial template.
		"dict": func(kv ...any) map[string]any {
			m := make(map[string]any, len(kv)/2)
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		},
		"ms": func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" },
	}
}

func timeOf(v any) (time.Time, bool) {
	switch t := v.(type) {
	case time.Time:
		return t, !t.IsZero()
	case *time.Time:
		if t == nil {
			return time.Time{}, false
		}
		return *t, !t.IsZero()
	}
	return time.Time{}, false
}

// changeSummary is a run's change in one short line: what its first
// signal became (or lost), else its error.
func changeSummary(run *model.Run) string {
	for _, sig := range run.ChangeSignal {
		text := ""
		switch {
		case sig.To != nil && strings.TrimSpace(*sig.To) != "":
			text = *sig.To
		case sig.From != nil:
			text = "removed: " + *sig.From
		}
		if text = strings.Join(strings.Fields(text), " "); text != "" {
			if more := len(run.ChangeSignal) - 1; more > 0 {
				return clip(text, 110) + " (+" + itoa(more) + " more)"
			}
			return clip(text, 120)
		}
	}
	return run.Error
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// tone is how a status or outcome looks: good, bad, warn, info or quiet.
func tone(s string) string {
	switch s {
	case model.MonitorActive, model.DeliveryDelivered, model.OutcomeAnchored, model.ExtractionApproved,
		model.ExtractionReady:
		return "good"
	case model.OutcomeChanged:
		return "info"
	// "error", "failed" (a delivery, an extraction preview).
	case model.MonitorError, model.DeliveryFailed, model.OutcomeRelocationFailed:
		return "bad"
	// "pending" (a delivery, an extraction).
	case model.OutcomeBlocked, model.OutcomePayloadTooLarge, model.DeliveryPending:
		return "warn"
	}
	return "quiet"
}

// group writes n with thousands separated by commas.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
