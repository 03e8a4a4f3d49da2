package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"webacq/internal/model"
)

// extractionColumns are a monitor's extraction approval loop (migration
// 00007). They are read with every monitor but written only here, so
// UpdateMonitor, which a run calls, never undoes an approval.
const extractionColumns = `extract_refinements, extract_preview, extracted_sample, locked_prompt, extract_approved_at`

// monitorSelect is what a monitor is read with.
const monitorSelect = monitorColumns + `, channel_state, ` + extractionColumns

// extractionScan receives the extraction columns of a monitor row.
type extractionScan struct {
	refinements             string
	preview, sample, prompt sql.NullString
	approved                sql.NullTime
}

func (x *extractionScan) dest() []any {
	return []any{&x.refinements, &x.preview, &x.sample, &x.prompt, &x.approved}
}

// extraction is the monitor's loop state; nil for a monitor without an
// intent or a template.
func (x *extractionScan) extraction(intent string) (*model.Extraction, error) {
	if intent == "" && x.prompt.String == "" {
		return nil, nil
	}
	out := &model.Extraction{LockedPrompt: x.prompt.String, ApprovedAt: timePtr(x.approved)}
	if err := json.Unmarshal([]byte(x.refinements), &out.Refinements); err != nil {
		return nil, err
	}
	if out.Refinements == nil {
		out.Refinements = []string{}
	}
	if x.preview.Valid {
		if err := json.Unmarshal([]byte(x.preview.String), &out.Preview); err != nil {
			return nil, err
		}
	}
	if x.sample.Valid {
		out.ExtractedSample = json.RawMessage(x.sample.String)
	}
	out.SetStatus()
	return out, nil
}

// SetExtractPreview stores a monitor's latest preview and the refinements
// gathered so far, in tx.
func (s *Store) SetExtractPreview(ctx context.Context, tx Tx, monitorID string, refinements []string, p *model.ExtractPreview) error {
	if refinements == nil {
		refinements = []string{}
	}
	preview, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("store: encode preview: %w", err)
	}
	n, err := tx.Exec(ctx, `UPDATE monitors SET extract_refinements = $2, extract_preview = $3 WHERE id = $1`,
		monitorID, mustJSON(refinements), string(preview))
	if err != nil {
		return fmt.Errorf("store: set extract preview: %w", err)
	}
	if n == 0 {
		return model.Errorf(model.CodeNotFound, "monitor not found")
	}
	return nil
}

// ApproveExtract locks a monitor's extraction template, in tx: later
// changed runs extract with prompt and sample. Approving again replaces
// the template.
func (s *Store) ApproveExtract(ctx context.Context, tx Tx, monitorID string, sample json.RawMessage, prompt string, at time.Time) error {
	n, err := tx.Exec(ctx, `UPDATE monitors SET extracted_sample = $2, locked_prompt = $3, extract_approved_at = $4
		WHERE id = $1`, monitorID, string(sample), prompt, at)
	if err != nil {
		return fmt.Errorf("store: approve extract: %w", err)
	}
	if n == 0 {
		return model.Errorf(model.CodeNotFound, "monitor not found")
	}
	return nil
}

// StrandedPreviews returns the ids of up to limit monitors whose
// registration preview will never be made: they have an extract_intent,
// no preview and no locked template, their preview job was discarded
// (River discards the job of a node that died during its last attempt)
// and none is live. Without an answer their extraction would say pending
// for ever.
func (s *Store) StrandedPreviews(ctx context.Context, limit int) ([]string, error) {
	arg := "args->>'monitor_id'"
	if s.dialect == SQLite {
		arg = "json_extract(args, '$.monitor_id')"
	}
	job := `SELECT 1 FROM river_job WHERE kind = 'monitor_extract_preview' AND ` + arg + ` = m.id AND state `
	rows, err := s.rdb.QueryContext(ctx, fmt.Sprintf(`SELECT m.id FROM monitors m WHERE m.extract_intent <> ''
		AND m.extract_preview IS NULL AND COALESCE(m.locked_prompt, '') = ''
		AND EXISTS (`+job+`= 'discarded')
		AND NOT EXISTS (`+job+`IN ('available', 'scheduled', 'running', 'retryable', 'pending'))
		ORDER BY m.created_at, m.id LIMIT %d`, limit))
	if err != nil {
		return nil, fmt.Errorf("store: stranded previews: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: stranded previews: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
