package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"webacq/internal/model"
)

// anthropicClient speaks POST {base}/v1/messages. A schema becomes the
// input_schema of one tool the model is forced to call, which is how the
// messages API returns JSON that follows a schema.
type anthropicClient struct {
	t transport
}

func (c *anthropicClient) Model() string { return c.t.cfg.Model }

func (c *anthropicClient) Limits() Limits {
	return Limits{ContextTokens: c.t.cfg.ContextTokens, MaxOutputTokens: c.t.cfg.MaxOutputTokens}
}

type messagesResponse struct {
	Content []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
}

// Complete asks for one message; with a schema, the answer is the input
// of the forced tool call.
func (c *anthropicClient) Complete(ctx context.Context, req Request) (string, error) {
	ctx, cancel := c.t.callContext(ctx)
	defer cancel()
	header := http.Header{}
	if c.t.cfg.APIKey != "" {
		header.Set("x-api-key", c.t.cfg.APIKey)
	}
	header.Set("anthropic-version", AnthropicVersion)
	body := map[string]any{
		"model":       c.t.cfg.Model,
		"max_tokens":  c.t.cfg.MaxOutputTokens,
		"temperature": 0,
		"messages":    []chatMessage{{Role: "user", Content: req.User}},
	}
	if req.System != "" {
		body["system"] = req.System
	}
	tool := req.SchemaName
	if tool == "" {
		tool = "extraction"
	}
	if len(req.Schema) > 0 {
		body["tools"] = []map[string]any{{
			"name":         tool,
			"description":  "Record the data extracted from the page. Call it exactly once with the complete answer.",
			"input_schema": req.Schema,
		}}
		body["tool_choice"] = map[string]any{"type": "tool", "name": tool}
	}
	data, err := c.t.post(ctx, c.t.cfg.BaseURL+"/v1/messages", header, body)
	if err != nil {
		return "", c.t.classify(ctx, err)
	}
	var resp messagesResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return "", model.Wrap(model.CodeUnavailable, fmt.Errorf("llm: decode message: %w", err),
			"Anthropic answered something other than a message: check WEBACQ_LLM_BASE_URL")
	}
	var text strings.Builder
	for _, b := range resp.Content {
		switch b.Type {
		case "tool_use":
			if len(req.Schema) > 0 && b.Name == tool && len(b.Input) > 0 {
				if resp.StopReason == "max_tokens" {
					// The input of a cut tool call is incomplete, whatever it parses as.
					return "", ErrTruncated
				}
				return string(b.Input), nil
			}
		case "text":
			text.WriteString(b.Text)
		}
	}
	if resp.StopReason == "refusal" {
		return "", model.Errorf(model.CodeUnavailable, "the language model refused the request")
	}
	// No tool call (an output cut at max_tokens, or a model that answered
	// in prose): the caller repairs or retries the text.
	return text.String(), nil
}
