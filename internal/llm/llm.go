// Package llm talks to the language model that extract and monitor
// previews use: any OpenAI-compatible chat-completions server (llama.cpp,
// Ollama's /v1, vLLM, OpenAI) or Anthropic's messages API, over plain
// net/http. Extract (extract.go) turns a page's markdown and an intent into
// schema-checked {found, data} objects, chunking pages to the model's context.
//
// Every failure of the model is a *model.Error with code unavailable (or
// timeout): callers refund the call. Messages name the provider's HTTP status
// and the setting to check, never the API key or the provider's error text.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"webacq/internal/model"
)

// Providers.
const (
	ProviderOpenAI    = "openai"    // OpenAI-compatible chat completions
	ProviderAnthropic = "anthropic" // Anthropic messages
)

// Defaults of Config.
const (
	// DefaultContextTokens is the context assumed for OpenAI-compatible
	// servers: local servers (llama.cpp, Ollama, vLLM) often run with 8k or
	// less, and a larger page is only split into more calls.
	DefaultContextTokens = 8192
	// DefaultAnthropicContextTokens stays well under the 200k of current
	// Claude models, which bounds the cost of one call.
	DefaultAnthropicContextTokens = 100_000
	DefaultMaxOutputTokens        = 2048
	DefaultTimeout                = 120 * time.Second
	DefaultOpenAIBaseURL          = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL       = "https://api.anthropic.com"
	// AnthropicVersion is the anthropic-version header sent.
	AnthropicVersion = "2023-06-01"

	maxResponseBytes = 8 << 20
)

// ConfigureHint says how to turn extraction on; it is part of the
// unavailable message of an unconfigured service.
const ConfigureHint = "extraction needs a language model: set WEBACQ_LLM_PROVIDER (openai for any OpenAI-compatible server such as llama.cpp, Ollama or vLLM; anthropic), WEBACQ_LLM_MODEL, and WEBACQ_LLM_BASE_URL and WEBACQ_LLM_API_KEY as the server needs (see README)"

// ErrNotConfigured is wrapped by the error of New when no provider is set,
// so that callers can tell "extraction off" from a broken configuration.
var ErrNotConfigured = errors.New("llm: no provider configured")

// NotConfigured is the unavailable error extract answers without a model.
func NotConfigured() error {
	return model.Wrap(model.CodeUnavailable, ErrNotConfigured, ConfigureHint)
}

// Config selects and sizes the model (WEBACQ_LLM_* settings).
type Config struct {
	Provider string // openai | anthropic; empty turns extraction off
	// BaseURL is the API root: for openai the part before /chat/completions
	// (http://127.0.0.1:8080/v1 for llama.cpp, http://127.0.0.1:11434/v1 for
	// Ollama); for anthropic the part before /v1/messages.
	BaseURL string
	APIKey  string // optional for local servers
	Model   string
	// ContextTokens is the model's context window in tokens; pages are cut
	// into chunks that fit it with the prompt and the answer. Default
	// DefaultContextTokens (openai) or DefaultAnthropicContextTokens.
	ContextTokens int
	// Timeout bounds one model call (default DefaultTimeout).
	Timeout time.Duration
	// MaxOutputTokens bounds one answer (default DefaultMaxOutputTokens).
	MaxOutputTokens int
}

// Limits are the sizes a caller plans its prompts with.
type Limits struct {
	ContextTokens   int
	MaxOutputTokens int
}

// Request is one completion: a system and a user message, and optionally
// the JSON Schema the answer must match.
type Request struct {
	System string
	User   string
	// Schema, when set, is an object schema the answer is constrained to
	// where the provider supports it (and described in the prompt anyway).
	Schema json.RawMessage
	// SchemaName names the schema to the provider ([a-zA-Z0-9_-], default "extraction").
	SchemaName string
}

// Client completes prompts. The OpenAI-compatible and Anthropic clients
// implement it; tests may bring their own.
type Client interface {
	// Model names the model, as reported in extract results.
	Model() string
	// Limits are the context and output sizes to plan prompts with.
	Limits() Limits
	// Complete returns the model's answer: the JSON text when req.Schema is set.
	Complete(ctx context.Context, req Request) (string, error)
}

// New returns the client cfg selects. httpClient may be nil (a plain
// client); it must not be the SSRF-guarded fetch client when the model
// runs on a local address. Without a provider the error wraps
// ErrNotConfigured and has code unavailable.
func New(cfg Config, httpClient *http.Client) (Client, error) {
	cfg.Provider = strings.ToLower(strings.TrimSpace(cfg.Provider))
	if cfg.Provider == "" {
		return nil, NotConfigured()
	}
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxOutputTokens <= 0 {
		cfg.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, model.Errorf(model.CodeUnavailable, "WEBACQ_LLM_MODEL is not set: name the model the %s server should run", cfg.Provider)
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	switch cfg.Provider {
	case ProviderOpenAI:
		if base == "" {
			base = DefaultOpenAIBaseURL
		}
		if cfg.ContextTokens <= 0 {
			cfg.ContextTokens = DefaultContextTokens
		}
	case ProviderAnthropic:
		if base == "" {
			base = DefaultAnthropicBaseURL
		}
		// Accept a base URL given with the version path too.
		base = strings.TrimSuffix(base, "/v1")
		if cfg.ContextTokens <= 0 {
			cfg.ContextTokens = DefaultAnthropicContextTokens
		}
	default:
		return nil, model.Errorf(model.CodeUnavailable, "WEBACQ_LLM_PROVIDER %q is not supported: use openai or anthropic", cfg.Provider)
	}
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, model.Errorf(model.CodeUnavailable, "WEBACQ_LLM_BASE_URL must be an http(s) URL")
	}
	if cfg.MaxOutputTokens*2 > cfg.ContextTokens {
		return nil, model.Errorf(model.CodeUnavailable, "WEBACQ_LLM_CONTEXT_TOKENS (%d) must be at least twice the output budget (%d tokens)", cfg.ContextTokens, cfg.MaxOutputTokens)
	}
	cfg.BaseURL = base
	t := transport{cfg: cfg, http: httpClient}
	if cfg.Provider == ProviderAnthropic {
		return &anthropicClient{t: t}, nil
	}
	return &openAIClient{t: t}, nil
}

// transport is what both clients share: the configuration, the HTTP
// client and the classification of failures.
type transport struct {
	cfg  Config
	http *http.Client
}

// providerName is how messages name the provider.
func (t *transport) providerName() string {
	if t.cfg.Provider == ProviderAnthropic {
		return "Anthropic"
	}
	return "the OpenAI-compatible server"
}

// statusError is a non-2xx answer of the provider.
type statusError struct {
	Status     int
	Body       string // truncated; internal only
	retryAfter string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("llm: HTTP %d: %s", e.Status, e.Body)
}

// post sends body as JSON to url and returns the 2xx response body. Non-2xx
// answers come back as *statusError so that clients can adapt to a 400
// before classify turns them into client-safe errors.
func (t *transport) post(ctx context.Context, url string, header http.Header, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("llm: encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("llm: request: %w", err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := t.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, &statusError{Status: resp.StatusCode, Body: truncate(string(data), 2000), retryAfter: resp.Header.Get("Retry-After")}
	}
	if len(data) > maxResponseBytes {
		// Said as it is: the model was reached, and answered too much.
		return nil, model.Errorf(model.CodeUnavailable, "the language model answered more than %d MB (%s): the answer was not read",
			maxResponseBytes>>20, t.providerName())
	}
	return data, nil
}

// classify turns a failure of post (or of decoding its answer) into the
// client-safe error callers see.
func (t *transport) classify(ctx context.Context, err error) error {
	var me *model.Error
	if errors.As(err, &me) {
		return err
	}
	name := t.providerName()
	var se *statusError
	if errors.As(err, &se) {
		e := &model.Error{Code: model.CodeUnavailable, Err: err}
		switch {
		case se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden:
			e.Message = fmt.Sprintf("the language model provider refused the credentials (%s answered HTTP %d): check WEBACQ_LLM_API_KEY", name, se.Status)
		case se.Status == http.StatusNotFound:
			e.Message = fmt.Sprintf("%s answered HTTP 404: check WEBACQ_LLM_BASE_URL and WEBACQ_LLM_MODEL", name)
		case se.Status == http.StatusTooManyRequests:
			e.Message = fmt.Sprintf("the language model is rate limited (%s answered HTTP 429); try again later", name)
			if d, err := time.ParseDuration(strings.TrimSpace(se.retryAfter) + "s"); err == nil && d > 0 {
				e.RetryAfter = d
			}
		case contextExceeded(se):
			e.Message = fmt.Sprintf("the prompt does not fit the model's context (%s answered HTTP %d): lower WEBACQ_LLM_CONTEXT_TOKENS to the server's context size", name, se.Status)
		case se.Status >= 500:
			e.Message = fmt.Sprintf("the language model failed (%s answered HTTP %d)", name, se.Status)
		default:
			e.Message = fmt.Sprintf("the language model rejected the request (%s answered HTTP %d)", name, se.Status)
		}
		return e
	}
	switch {
	case errors.Is(context.Cause(ctx), errCallTimeout) || (ctx.Err() == nil && isNetTimeout(err)):
		return model.Wrap(model.CodeTimeout, err, fmt.Sprintf("the language model did not answer within %s", t.cfg.Timeout))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return model.Wrap(model.CodeTimeout, err, "the extraction ran out of time waiting for the language model")
	case ctx.Err() != nil:
		return model.Wrap(model.CodeUnavailable, err, "the extraction was cancelled")
	}
	return model.Wrap(model.CodeUnavailable, err, fmt.Sprintf("the language model could not be reached (%s at WEBACQ_LLM_BASE_URL)", name))
}

var errCallTimeout = errors.New("llm: call timeout")

// callContext bounds one model call by the configured timeout.
func (t *transport) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, t.cfg.Timeout, errCallTimeout)
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// contextExceeded recognises the "prompt too long" answers of llama.cpp,
// vLLM, OpenAI and Anthropic.
func contextExceeded(se *statusError) bool {
	if se.Status != http.StatusBadRequest && se.Status != http.StatusRequestEntityTooLarge {
		return false
	}
	b := strings.ToLower(se.Body)
	return strings.Contains(b, "context_length_exceeded") || strings.Contains(b, "exceed_context_size") ||
		strings.Contains(b, "maximum context length") || strings.Contains(b, "context size") ||
		strings.Contains(b, "prompt is too long") || strings.Contains(b, "too many tokens")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
