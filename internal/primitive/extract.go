package primitive

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"webacq/internal/billing"
	"webacq/internal/llm"
	"webacq/internal/model"
)

// Limits of an extract request.
const (
	DefaultExtractTimeout = 180 * time.Second
	MaxExtractTimeout     = 600 * time.Second
	maxIntentChars        = 2000
	maxPromptChars        = 10000
	maxSchemaBytes        = 64 << 10
)

// ExtractRequest is the body of POST /api/v1/extract and the arguments of
// the svc_extract tool.
//
// Schema is a map rather than raw JSON so that a schema generated from this
// type (MCP inputSchema) says "object" for it.
type ExtractRequest struct {
	URL             string         `json:"url" jsonschema:"absolute http(s) URL of the page to extract from"`
	Intent          string         `json:"intent,omitempty" jsonschema:"plain-English description of what to find on the page, e.g. 'the dates and titles of upcoming earnings calls'; intent or prompt is required"`
	Prompt          string         `json:"prompt,omitempty" jsonschema:"instructions for the extraction, used with or instead of intent"`
	Schema          map[string]any `json:"schema,omitempty" jsonschema:"JSON Schema of one extracted object (or an array of them); without it the model chooses the fields"`
	Tier            string         `json:"tier,omitempty" jsonschema:"auto (default: HTTP, escalating to a real browser on bot walls and JavaScript-only pages), http (5 credits) or browser (7 credits)"`
	OnlyMainContent *bool          `json:"onlyMainContent,omitempty" jsonschema:"read only the main content, without navigation, headers and footers (default true)"`
	Timeout         int            `json:"timeout,omitempty" jsonschema:"milliseconds before the extraction gives up, fetch included (default 180000, max 600000)"`
}

// ExtractResult is the data of an extraction.
type ExtractResult struct {
	URL   string           `json:"url"`
	Found bool             `json:"found"`
	Data  []map[string]any `json:"data"` // never null
	Model string           `json:"model"`
	// Tier is the fetch tier the page needed; it sets the price
	// (billing.ExtractCost).
	Tier string `json:"tier"`
}

// Normalize checks r and fills its defaults. checkURL applies the SSRF
// policy to the URL; browser says whether a browser tier exists.
func (r *ExtractRequest) Normalize(checkURL func(string) (*url.URL, error), browser bool) error {
	f := FetchRequest{URL: r.URL, OnlyMainContent: r.OnlyMainContent, Tier: r.Tier}
	if err := f.Normalize(checkURL, browser); err != nil {
		return err
	}
	r.URL, r.OnlyMainContent, r.Tier = f.URL, f.OnlyMainContent, f.Tier
	r.Intent, r.Prompt = strings.TrimSpace(r.Intent), strings.TrimSpace(r.Prompt)
	if r.Intent == "" && r.Prompt == "" {
		return model.Errorf(model.CodeBadRequest, "intent or prompt is required: say what to extract")
	}
	if len([]rune(r.Intent)) > maxIntentChars {
		return model.Errorf(model.CodeBadRequest, "intent is longer than %d characters", maxIntentChars)
	}
	if len([]rune(r.Prompt)) > maxPromptChars {
		return model.Errorf(model.CodeBadRequest, "prompt is longer than %d characters", maxPromptChars)
	}
	if r.Schema != nil {
		raw, err := json.Marshal(r.Schema)
		if err != nil {
			return model.Errorf(model.CodeBadRequest, "schema is not valid JSON")
		}
		if len(raw) > maxSchemaBytes {
			return model.Errorf(model.CodeBadRequest, "schema is larger than %d KB", maxSchemaBytes>>10)
		}
		if _, err := llm.CompileSchema(raw); err != nil {
			return err
		}
	}
	if r.Timeout < 0 || int64(r.Timeout) > MaxExtractTimeout.Milliseconds() { // on the integer: a Duration would overflow
		return model.Errorf(model.CodeBadRequest, "timeout must be between 0 and %d ms", MaxExtractTimeout.Milliseconds())
	}
	return nil
}

// MaxCost is what a normalised request may cost at most: auto reserves the
// browser price when a browser exists.
func (r *ExtractRequest) MaxCost(browser bool) int64 {
	if r.Tier == TierBrowser || (r.Tier == TierAuto && browser) {
		return billing.ExtractBrowser
	}
	return billing.ExtractHTTP
}

func (r *ExtractRequest) timeout() time.Duration {
	if r.Timeout == 0 {
		return DefaultExtractTimeout
	}
	return time.Duration(r.Timeout) * time.Millisecond
}

// Extract fetches the page's main content for a workspace and has the
// language model extract what the request asks for. The request must have
// been normalised; a nil client answers unavailable with how to configure
// one. The result's Tier prices the call.
func (s *Service) Extract(ctx context.Context, workspaceID string, client llm.Client, req ExtractRequest) (*ExtractResult, error) {
	if client == nil {
		return nil, llm.NotConfigured()
	}
	ctx, cancel := context.WithTimeout(ctx, req.timeout())
	defer cancel()
	page, err := s.Fetch(ctx, workspaceID, FetchRequest{
		URL: req.URL, Formats: []string{FormatMarkdown}, OnlyMainContent: req.OnlyMainContent, Tier: req.Tier,
		Timeout: int(min(DefaultFetchTimeout, req.timeout()).Milliseconds()),
	})
	if err != nil {
		return nil, err
	}
	if page.StatusCode >= 400 {
		return nil, model.Errorf(model.CodeUpstreamError, "the site answered HTTP %d: nothing to extract", page.StatusCode)
	}
	var schema json.RawMessage
	if req.Schema != nil {
		if schema, err = json.Marshal(req.Schema); err != nil {
			return nil, model.Wrap(model.CodeBadRequest, err, "schema is not valid JSON")
		}
	}
	md := ""
	if page.Markdown != nil {
		md = *page.Markdown
	}
	x, err := llm.Extract(ctx, client, llm.ExtractInput{
		Markdown: md, URL: page.FinalURL, Intent: req.Intent, Prompt: req.Prompt, Schema: schema,
	})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && model.ErrorCode(err) != model.CodeTimeout {
			return nil, model.Wrap(model.CodeTimeout, err, "the extraction did not finish within its timeout")
		}
		return nil, err
	}
	if x.Truncated && s.Log != nil {
		s.Log.Info("extract: page longer than the chunks read", "url", req.URL, "chunks", x.Chunks, "workspace_id", workspaceID)
	}
	return &ExtractResult{URL: req.URL, Found: x.Found, Data: x.Data, Model: client.Model(), Tier: page.Tier}, nil
}
