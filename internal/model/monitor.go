package model

import (
	"encoding/json"
	"time"
)

// Monitor statuses (spec 3.1).
const (
	MonitorActive = "active"
	MonitorPaused = "paused"
	MonitorError  = "error"
)

// Run outcomes (spec 3.2).
const (
	OutcomeUnchanged        = "unchanged"
	OutcomeAnchored         = "anchored"
	OutcomeChanged          = "changed"
	OutcomeRelocationFailed = "relocation_failed"
	OutcomePayloadTooLarge  = "payload_too_large"
	OutcomeBlocked          = "blocked"
	OutcomeError            = "error"
)

// Discovery channels (spec 4.3).
const (
	ChannelIRPage        = "ir_page"
	ChannelBusinessWire  = "businesswire"
	ChannelGlobeNewswire = "globenewswire"
	ChannelEdgar8K       = "edgar_8k"
	ChannelDirectPDF     = "direct_pdf"
)

// Channels lists every channel value in the spec's order.
var Channels = []string{ChannelIRPage, ChannelBusinessWire, ChannelGlobeNewswire, ChannelEdgar8K, ChannelDirectPDF}

// Company names the issuer a monitor follows (edgar_8k and the wires).
type Company struct {
	CIK    string `json:"cik,omitempty"`
	Ticker string `json:"ticker,omitempty"`
	Name   string `json:"name,omitempty"`
}

// Monitor is a watched URL as stored.
type Monitor struct {
	ID                 string          `json:"monitor_id"`
	WorkspaceID        string          `json:"-"`
	URL                string          `json:"url"`
	Host               string          `json:"-"`
	Label              string          `json:"label"`
	Channels           []string        `json:"channels"`
	CheckIntervalHours int             `json:"check_interval_hours"`
	DiscoveryKeywords  []string        `json:"discovery_keywords"`
	ExtractIntent      string          `json:"extract_intent,omitempty"`
	Extraction         *Extraction     `json:"extraction,omitempty"`
	AcceptSelectors    []string        `json:"accept_selectors"`
	Company            *Company        `json:"company,omitempty"`
	Alerts             AlertsOverride  `json:"alerts,omitempty"`
	Status             string          `json:"status"`
	ConsecutiveErrors  int             `json:"consecutive_errors"`
	Anchor             json.RawMessage `json:"-"`
	Snapshot           string          `json:"-"`
	ETag               string          `json:"-"`
	LastModified       string          `json:"-"`
	BodyHash           string          `json:"-"`
	Reanchor           bool            `json:"-"`
	LastChecked        *time.Time      `json:"last_checked"`
	LastChanged        *time.Time      `json:"last_changed"`
	LastOutcome        string          `json:"last_outcome"`
	TopScore           *float64        `json:"top_score"` // the last check's; nil when it compared nothing
	NextCheckAt        time.Time       `json:"next_check_at"`
	JobID              int64           `json:"-"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`

	// ChannelState is the state of the channels besides the page, as JSON
	// by channel (internal/monitor).
	ChannelState json.RawMessage `json:"-"`
}

// AnchorSet reports whether a fingerprint anchor exists.
func (m *Monitor) AnchorSet() bool { return len(m.Anchor) > 0 }

// Signal is one item of a run's change_signal (spec 6).
type Signal struct {
	Field string  `json:"field"`
	From  *string `json:"from"`
	To    *string `json:"to"`
	Ratio float64 `json:"ratio"`
}

// Run is one check of a monitor (DECISIONS.md "Run record").
type Run struct {
	ID              string          `json:"run_id"`
	MonitorID       string          `json:"monitor_id"`
	WorkspaceID     string          `json:"-"`
	DueAt           time.Time       `json:"due_at"`
	StartedAt       time.Time       `json:"started_at"`
	FinishedAt      time.Time       `json:"finished_at"`
	Outcome         string          `json:"outcome"`
	Suppressed      bool            `json:"suppressed"`
	TopScore        *float64        `json:"top_score"` // relocation score 0–100; nil when the run compared nothing
	Channel         string          `json:"channel"`
	StatusCode      int             `json:"status_code"`
	Tier            string          `json:"tier"`
	ContentHash     string          `json:"content_hash"`
	SizeBytes       int64           `json:"size_bytes"`
	ChangeSignal    []Signal        `json:"change_signal"`
	PDFLinks        []string        `json:"pdf_links"`
	ExtractedFields json.RawMessage `json:"extracted_fields,omitempty"`
	Error           string          `json:"error,omitempty"`
	Credits         int64           `json:"credits"`
	ContentPreview  string          `json:"content_preview,omitempty"`
	Snapshot        *string         `json:"snapshot,omitempty"`
	Diff            *string         `json:"diff,omitempty"`
	// Webhook is the run's webhook delivery (nil: none was written).
	Webhook *RunDelivery `json:"webhook"`
}

// RunDelivery is a run's webhook delivery and its status, in the run record.
type RunDelivery struct {
	DeliveryID string `json:"delivery_id"`
	Status     string `json:"status"`
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one alert of a run to one destination, with its attempts.
type Delivery struct {
	ID          string `json:"delivery_id"`
	MonitorID   string `json:"monitor_id"`
	WorkspaceID string `json:"-"`
	RunID       string `json:"run_id"`
	Kind        string `json:"kind"`
	// Target is where a Slack, email or SMS delivery goes (a sealed URL,
	// an address, a number); a webhook goes to the workspace's webhook.
	Target     string            `json:"-"`
	Status     string            `json:"status"`
	Payload    json.RawMessage   `json:"payload"`
	Attempts   int               `json:"attempts"`
	LastStatus int               `json:"last_status"`
	LastError  string            `json:"last_error,omitempty"`
	CreatedAt  time.Time         `json:"created_at"`
	UpdatedAt  time.Time         `json:"updated_at"`
	Log        []DeliveryAttempt `json:"attempt_log,omitempty"`
}

// DeliveryAttempt is one try of a delivery.
type DeliveryAttempt struct {
	Attempt    int       `json:"attempt"`
	StatusCode int       `json:"status_code"`
	LatencyMS  int64     `json:"latency_ms"`
	ErrorClass string    `json:"error_class,omitempty"`
	Response   string    `json:"response,omitempty"`
	At         time.Time `json:"at"`
}

// AlertsOverride is a monitor's own alert channels as stored (DECISIONS.md,
// Alert channels): a JSON object whose present fields replace the
// workspace's. The Slack URL, a credential, is stored sealed with a
// redacted hint beside it; only the hint is ever shown.
type AlertsOverride json.RawMessage

// Alert override fields as stored.
const (
	AlertSlackURL  = "slack_webhook_url"
	AlertSlackHint = "slack_hint"
	AlertEmailTo   = "email_to"
	AlertSMSTo     = "sms_to"
)

// MarshalJSON shows the override with the Slack URL replaced by its hint.
func (a AlertsOverride) MarshalJSON() ([]byte, error) {
	if len(a) == 0 {
		return []byte("null"), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(a, &fields); err != nil {
		return nil, err
	}
	if _, ok := fields[AlertSlackURL]; ok {
		hint, ok := fields[AlertSlackHint]
		if !ok {
			hint = json.RawMessage(`""`)
		}
		fields[AlertSlackURL] = hint
	}
	delete(fields, AlertSlackHint)
	return json.Marshal(fields)
}
