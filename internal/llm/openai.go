package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"webacq/internal/model"
)

// Response formats an OpenAI-compatible server is asked for, from the
// strongest down. A server that rejects one with HTTP 400 is asked for the
// next, and the client remembers it for later calls.
const (
	formatJSONSchema = iota // response_format json_schema (llama.cpp, Ollama, vLLM, OpenAI)
	formatJSONObject        // response_format json_object
	formatPlain             // no response_format: the prompt alone asks for JSON
)

// openAIClient speaks POST {base}/chat/completions.
type openAIClient struct {
	t transport

	format          atomic.Int32 // formatJSONSchema, …
	completionField atomic.Bool  // send max_completion_tokens instead of max_tokens
	noStrict        atomic.Bool  // the server rejected a strict schema
	noTemperature   atomic.Bool  // the model accepts only its default temperature
}

func (c *openAIClient) Model() string { return c.t.cfg.Model }

func (c *openAIClient) Limits() Limits {
	return Limits{ContextTokens: c.t.cfg.ContextTokens, MaxOutputTokens: c.t.cfg.MaxOutputTokens}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// Complete asks for one chat completion, adapting once per parameter to a
// server that rejects it with HTTP 400.
func (c *openAIClient) Complete(ctx context.Context, req Request) (string, error) {
	ctx, cancel := c.t.callContext(ctx)
	defer cancel()
	header := http.Header{}
	if c.t.cfg.APIKey != "" {
		header.Set("Authorization", "Bearer "+c.t.cfg.APIKey)
	}
	url := c.t.cfg.BaseURL + "/chat/completions"
	for attempt := 0; ; attempt++ {
		body := c.body(req)
		data, err := c.t.post(ctx, url, header.Clone(), body)
		var se *statusError
		if errors.As(err, &se) && se.Status == http.StatusBadRequest && !contextExceeded(se) && attempt < 4 && c.adapt(se, req) {
			continue
		}
		if err != nil {
			return "", c.t.classify(ctx, err)
		}
		var resp chatResponse
		if err := json.Unmarshal(data, &resp); err != nil {
			return "", model.Wrap(model.CodeUnavailable, fmt.Errorf("llm: decode chat completion: %w", err),
				"the OpenAI-compatible server answered something other than a chat completion: check WEBACQ_LLM_BASE_URL")
		}
		if len(resp.Choices) == 0 {
			return "", model.Errorf(model.CodeUnavailable, "the OpenAI-compatible server answered no choices")
		}
		m := resp.Choices[0].Message
		if m.Content == nil || *m.Content == "" {
			if m.Refusal != nil && *m.Refusal != "" {
				return "", model.Errorf(model.CodeUnavailable, "the language model refused the request")
			}
			return "", nil // an empty answer: the caller's validation retries
		}
		return *m.Content, nil
	}
}

// body is the request body in the client's current mode.
func (c *openAIClient) body(req Request) map[string]any {
	msgs := make([]chatMessage, 0, 2)
	if req.System != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: req.System})
	}
	msgs = append(msgs, chatMessage{Role: "user", Content: req.User})
	b := map[string]any{
		"model":    c.t.cfg.Model,
		"messages": msgs,
		"stream":   false,
	}
	if c.completionField.Load() {
		b["max_completion_tokens"] = c.t.cfg.MaxOutputTokens
	} else {
		b["max_tokens"] = c.t.cfg.MaxOutputTokens
	}
	if !c.noTemperature.Load() {
		b["temperature"] = 0
	}
	if len(req.Schema) > 0 {
		switch c.format.Load() {
		case formatJSONSchema:
			name := req.SchemaName
			if name == "" {
				name = "extraction"
			}
			b["response_format"] = map[string]any{
				"type": "json_schema",
				"json_schema": map[string]any{
					"name":   name,
					"schema": req.Schema,
					// Strict decoding needs every property required and no
					// additional ones; other schemas are a strong hint only.
					"strict": !c.noStrict.Load() && strictCompatible(req.Schema),
				},
			}
		case formatJSONObject:
			b["response_format"] = map[string]any{"type": "json_object"}
		}
	}
	return b
}

// adapt changes what the next request sends after a 400 and says whether
// there is anything left to change.
func (c *openAIClient) adapt(se *statusError, req Request) bool {
	msg := strings.ToLower(se.Body)
	switch {
	case strings.Contains(msg, "max_tokens") && !c.completionField.Load():
		c.completionField.Store(true)
		return true
	case strings.Contains(msg, "temperature") && !c.noTemperature.Load():
		c.noTemperature.Store(true)
		return true
	case len(req.Schema) > 0 && c.format.Load() == formatJSONSchema && !c.noStrict.Load() && strictCompatible(req.Schema):
		// Strict mode refuses some keywords (formats, patterns): a plain
		// json_schema is tried before json_object.
		c.noStrict.Store(true)
		return true
	case len(req.Schema) > 0 && c.format.Load() < formatPlain:
		c.format.Add(1)
		return true
	}
	return false
}

// strictCompatible says whether schema meets the rules of strict structured
// output: every object lists all its properties as required and forbids
// additional ones.
func strictCompatible(schema json.RawMessage) bool {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return false
	}
	return strictNode(v)
}

func strictNode(v any) bool {
	switch n := v.(type) {
	case []any:
		for _, x := range n {
			if !strictNode(x) {
				return false
			}
		}
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok || n["type"] == "object" {
			if ap, _ := n["additionalProperties"].(bool); ap || n["additionalProperties"] == nil {
				return false
			}
			req, _ := n["required"].([]any)
			if len(req) != len(props) {
				return false
			}
		}
		for k, x := range n {
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue
			}
			if !strictNode(x) {
				return false
			}
		}
	}
	return true
}
