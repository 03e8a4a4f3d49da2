package model

import (
	"encoding/json"
	"time"
)

// Extraction statuses of a monitor (spec 3.3).
const (
	ExtractionPending  = "pending"  // an intent, no preview yet
	ExtractionReady    = "ready"    // the latest preview succeeded
	ExtractionFailed   = "failed"   // the latest preview recorded an error
	ExtractionApproved = "approved" // a template is locked
)

// Extraction is a monitor's extraction approval loop: the refinements
// gathered by previews, the latest preview, and the locked template (spec
// 2.3: an approved sample and a locked prompt). A monitor has one when it
// has an extract_intent or a template.
type Extraction struct {
	Status          string          `json:"status"`
	Refinements     []string        `json:"refinements"`
	Preview         *ExtractPreview `json:"preview"`
	LockedPrompt    string          `json:"locked_prompt,omitempty"`
	ExtractedSample json.RawMessage `json:"extracted_sample,omitempty"`
	ApprovedAt      *time.Time      `json:"approved_at"`
}

// Approved reports whether a template is locked.
func (x *Extraction) Approved() bool { return x != nil && x.LockedPrompt != "" }

// SetStatus derives Status from the rest.
func (x *Extraction) SetStatus() {
	switch {
	case x.Approved():
		x.Status = ExtractionApproved
	case x.Preview == nil:
		x.Status = ExtractionPending
	case x.Preview.Error != "":
		x.Status = ExtractionFailed
	default:
		x.Status = ExtractionReady
	}
}

// ExtractPreview is one preview of a monitor's extraction: what the model
// found in the scoped region for the intent and the refinements, or why
// the preview failed (Error, "<code>: <message>").
type ExtractPreview struct {
	Found           bool             `json:"found"`
	Data            []map[string]any `json:"data"`
	ScopeExcerpt    string           `json:"scope_excerpt,omitempty"`
	Refinements     []string         `json:"refinements"`
	SuggestedPrompt string           `json:"suggested_prompt,omitempty"`
	Model           string           `json:"model,omitempty"`
	Error           string           `json:"error,omitempty"`
	CreatedAt       time.Time        `json:"created_at"`
}

// ExtractedFields is a run's extracted_fields (spec 6): what the locked
// extraction found, or why it did not run (Error, "<code>: <message>",
// with Found false and Data empty).
type ExtractedFields struct {
	Found bool             `json:"found"`
	Data  []map[string]any `json:"data"`
	Error string           `json:"error,omitempty"`
}
