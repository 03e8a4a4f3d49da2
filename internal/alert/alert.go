// Package alert is what a monitor tells its owner, and how it gets there:
// the webhook payload (spec 6, DECISIONS.md Webhooks) and the messages of
// the other channels (DECISIONS.md, Alert channels) rendered from it — a
// Slack message, an email with a plain-text and an HTML part, one SMS line —
// (alert.go); the operator's transports for email (SMTP) and SMS (a
// Twilio-compatible Messages API) (transport.go); and Service: the outbox a
// run's transaction writes its deliveries into (outbox.go), the sender per
// kind with its retries, redelivery and the email/SMS cap (deliver.go), and
// the workspace's webhook (webhook.go) and alert channels (settings.go).
package alert

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"webacq/internal/model"
)

// Delivery kinds: the webhook and the channels besides it.
const (
	KindWebhook = "webhook"
	KindSlack   = "slack"
	KindEmail   = "email"
	KindSMS     = "sms"
)

// Payload is the webhook body (spec 6 plus delivery_id and label); the
// other channels are rendered from it.
type Payload struct {
	DeliveryID      string          `json:"delivery_id"`
	MonitorID       string          `json:"monitor_id"`
	CallerID        string          `json:"caller_id"`
	Label           string          `json:"label"`
	URL             string          `json:"url"`
	DetectedAt      time.Time       `json:"detected_at"`
	Outcome         string          `json:"outcome"`
	TopScore        *float64        `json:"top_score"`
	Channel         string          `json:"channel"`
	ChangeSignal    []model.Signal  `json:"change_signal"`
	PDFLinks        []string        `json:"pdf_links"`
	SizeBytes       *int64          `json:"size_bytes,omitempty"`
	ExtractedFields json.RawMessage `json:"extracted_fields,omitempty"`
	ContentPreview  string          `json:"content_preview"`
	Error           string          `json:"error,omitempty"`
}

// headline says what happened, in a few words.
func headline(outcome string) string {
	switch outcome {
	case model.OutcomeAnchored:
		return "Now watching"
	case model.OutcomeChanged:
		return "Changed"
	case model.OutcomeRelocationFailed:
		return "Page restructured, watched region lost"
	case model.OutcomePayloadTooLarge:
		return "Document too large to read"
	case model.OutcomeBlocked:
		return "Blocked by the site"
	case model.OutcomeError:
		return "Check failed"
	}
	return outcome
}

// name is the label, or the URL when the monitor has none.
func (p *Payload) name() string {
	if strings.TrimSpace(p.Label) != "" {
		return p.Label
	}
	return p.URL
}

// Subject is the email subject and the first line of every message.
func (p *Payload) Subject() string {
	return clip(headline(p.Outcome)+": "+p.name(), 200)
}

// changes is the change, one line per signal, at most n lines of at most
// width characters.
func (p *Payload) changes(n, width int) []string {
	var out []string
	for _, s := range p.ChangeSignal {
		if len(out) == n {
			out = append(out, fmt.Sprintf("… and %d more", len(p.ChangeSignal)-n))
			break
		}
		switch {
		case s.From != nil && s.To != nil:
			out = append(out, clip("changed: "+oneLine(*s.From)+" → "+oneLine(*s.To), width))
		case s.To != nil:
			out = append(out, clip("added: "+oneLine(*s.To), width))
		case s.From != nil:
			out = append(out, clip("removed: "+oneLine(*s.From), width))
		}
	}
	return out
}

// details are the lines every long message carries after the change.
func (p *Payload) details() []string {
	var out []string
	if p.Error != "" {
		out = append(out, "Error: "+p.Error)
	}
	if p.SizeBytes != nil {
		out = append(out, fmt.Sprintf("Size: %d bytes", *p.SizeBytes))
	}
	if x := p.extracted(); x != "" {
		out = append(out, "Extracted: "+x)
	}
	for i, l := range p.PDFLinks {
		if i == 5 {
			out = append(out, fmt.Sprintf("… and %d more documents", len(p.PDFLinks)-5))
			break
		}
		out = append(out, "Document: "+l)
	}
	return out
}

// extracted is the extracted fields as compact JSON, bounded.
func (p *Payload) extracted() string {
	if len(p.ExtractedFields) == 0 || string(p.ExtractedFields) == "null" {
		return ""
	}
	var v any
	if json.Unmarshal(p.ExtractedFields, &v) != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return clip(string(b), 1500)
}

// Text is the plain-text message (the email's text part).
func (p *Payload) Text() string {
	var b strings.Builder
	b.WriteString(p.Subject() + "\n\n")
	b.WriteString("URL: " + p.URL + "\n")
	b.WriteString("Detected: " + p.DetectedAt.UTC().Format(time.RFC3339) + "\n")
	if p.Channel != "" {
		b.WriteString("Channel: " + p.Channel + "\n")
	}
	if ch := p.changes(10, 300); len(ch) > 0 {
		b.WriteString("\n")
		for _, l := range ch {
			b.WriteString("  " + l + "\n")
		}
	}
	if d := p.details(); len(d) > 0 {
		b.WriteString("\n")
		for _, l := range d {
			b.WriteString(l + "\n")
		}
	}
	if p.ContentPreview != "" {
		b.WriteString("\n" + clip(p.ContentPreview, 1000) + "\n")
	}
	b.WriteString("\nMonitor " + p.MonitorID + ", delivery " + p.DeliveryID + "\n")
	return b.String()
}

// SMS is one line under 160 characters: what happened to which monitor,
// and the first change when it fits.
func (p *Payload) SMS() string {
	line := headline(p.Outcome) + ": " + oneLine(p.name())
	if ch := p.changes(1, 160); len(ch) > 0 && !strings.HasPrefix(ch[0], "…") {
		line += " | " + ch[0]
	} else if p.Error != "" {
		line += " | " + p.Error
	}
	return clip(line, 159)
}

// Slack is the JSON body for a Slack incoming webhook: a short mrkdwn
// message (Slack wants &, < and > escaped in text).
func (p *Payload) Slack() []byte {
	var b strings.Builder
	b.WriteString("*" + slackEscape(headline(p.Outcome)) + "*: <" + slackEscape(p.URL) + "|" + slackEscape(oneLine(p.name())) + ">")
	for _, l := range p.changes(5, 300) {
		b.WriteString("\n> " + slackEscape(l))
	}
	for _, l := range p.details() {
		b.WriteString("\n" + slackEscape(l))
	}
	body, _ := json.Marshal(map[string]string{"text": b.String()})
	return body
}

func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// oneLine folds whitespace runs, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// RedactURL shows a credential URL (a Slack incoming webhook) without its
// secret part: the scheme, the host and the first path segment.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "[redacted]"
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	out := u.Scheme + "://" + u.Host + "/"
	if first != "" {
		out += first + "/"
	}
	return out + "[redacted]"
}
