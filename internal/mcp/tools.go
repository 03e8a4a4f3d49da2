package mcp

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"webacq/internal/billing"
	"webacq/internal/model"
	"webacq/internal/primitive"
)

// Primitives are the billed primitives (a *billed.Service), the same the
// REST handlers call: each reserves, runs and settles, writing the usage
// and activity rows with the call it is given.
type Primitives interface {
	Fetch(ctx context.Context, call *billing.Call, req primitive.FetchRequest) (*primitive.FetchResult, error)
	Map(ctx context.Context, call *billing.Call, req primitive.MapRequest) (*primitive.MapResult, error)
	Gyre(ctx context.Context, call *billing.Call, req primitive.GyreRequest, progress func(done, total int)) (*primitive.GyreResult, error)
	// GyreAny serves every form of the gyre body: a crawl, a crawl queued
	// ({async: true, …}), a crawl job read ({job_id, limit?, next?}).
	GyreAny(ctx context.Context, call *billing.Call, req primitive.GyreRequest, progress func(done, total int)) (any, error)
	Search(ctx context.Context, call *billing.Call, req primitive.SearchRequest, progress func(done, total int)) (*primitive.SearchResult, error)
	Extract(ctx context.Context, call *billing.Call, req primitive.ExtractRequest) (*primitive.ExtractResult, error)
}

// ownSlot are the tools that take a concurrency slot themselves when they
// need one: svc_gyre for a synchronous crawl only, not to queue a crawl
// job or read one (billed.GyreAny).
var ownSlot = map[string]bool{"svc_gyre": true}

type tool struct {
	name, endpoint, description string
}

// Tool names, the REST endpoints they bill as, and what an agent reads to
// choose one.
var tools = []tool{
	{"svc_search", "/api/v1/search", "Search the web (or the pages this workspace already acquired) for a query and " +
		"get ranked results with URL, title and snippet. Set fetch=true to also get each result's page as markdown. " +
		"Costs 1 credit, plus 1 per page fetched over HTTP or 3 per page that needed a browser."},
	{"svc_fetch", "/api/v1/fetch", "Read one web page or document (HTML, PDF, text, JSON) and get its main content " +
		"as clean markdown with title, description, language and metadata. Use it when you have a URL. " +
		"tier auto (default) escalates to a real browser for JavaScript-only pages and bot walls. " +
		"Costs 1 credit over HTTP, 3 with the browser; a failed fetch costs nothing."},
	{"svc_gyre", "/api/v1/gyre", "Crawl a website from a start URL, following its links (respecting robots.txt), " +
		"and get every page as markdown: {startUrl, totalPages, pages[{url,title,markdown,statusCode,via}], errors[]}. " +
		"Use it to read many pages of one site; bound it with maxPages. Costs 1 credit per page (3 with the browser). " +
		"For a long crawl send async=true: it answers {job_id, status} at once; then call svc_gyre with {job_id} alone " +
		"(and next) to read its status and pages, free."},
	{"svc_extract", "/api/v1/extract", "Extract structured data from a web page with a language model: give a url and " +
		"an intent in plain English (or a prompt), optionally a JSON Schema for each item; get {url, found, data[], model}. " +
		"Costs 5 credits (7 when the page needs a browser)."},
	{"svc_map", "/api/v1/map", "List the URLs of a website quickly from its sitemaps and links, without reading the " +
		"pages' content: {url, links[{url,title,source}], total}. Use search to rank URLs about a topic first. Costs 1 credit."},
}

var toolsByName = func() map[string]tool {
	m := map[string]tool{}
	for _, t := range tools {
		m[t.name] = t
	}
	return m
}()

// addTools registers the five tools on a request's server. Each input
// schema is generated from the Go type the REST handler decodes.
func (h *Handler) addTools(s *sdk.Server, st *reqState) {
	add(h, s, st, toolsByName["svc_fetch"], h.prims.Fetch)
	add(h, s, st, toolsByName["svc_map"], h.prims.Map)
	add(h, s, st, toolsByName["svc_extract"], h.prims.Extract)
	add(h, s, st, toolsByName["svc_gyre"], func(ctx context.Context, call *billing.Call, in primitive.GyreRequest) (any, error) {
		return h.prims.GyreAny(ctx, call, in, progressOf(ctx))
	})
	add(h, s, st, toolsByName["svc_search"], func(ctx context.Context, call *billing.Call, in primitive.SearchRequest) (*primitive.SearchResult, error) {
		return h.prims.Search(ctx, call, in, progressOf(ctx))
	})
}

type progressKey struct{}

// progressOf returns the progress reporter of a tool call (nil: none asked).
func progressOf(ctx context.Context) func(done, total int) {
	f, _ := ctx.Value(progressKey{}).(func(done, total int))
	return f
}

// progressFor reports progress as notifications/progress when the call
// carries a progress token; they reach the client on an event stream.
func progressFor(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return ctx
	}
	// Progress must increase (MCP): a primitive may report the same count
	// twice (a crawl's last page, then its end), from several goroutines.
	var mu sync.Mutex
	last := -1
	report := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if done <= last {
			return
		}
		last = done
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(done), Total: float64(total),
			Message: fmt.Sprintf("%d of %d", done, total),
		})
	}
	return context.WithValue(ctx, progressKey{}, report)
}

// add registers one tool whose handler runs a billed primitive. The
// arguments are decoded by the REST body's rules (decodeArguments), not by
// the SDK's schema validation, so a tool admits exactly what its REST
// endpoint admits and every refusal is a `bad_request: …` tool error.
func add[In, Out any](h *Handler, s *sdk.Server, st *reqState, t tool,
	run func(context.Context, *billing.Call, In) (Out, error)) {
	s.AddTool(&sdk.Tool{Name: t.name, Description: t.description, InputSchema: inputSchemas[t.name]},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			st.toolRan = true
			ctx = progressFor(ctx, req)
			call := &billing.Call{Principal: st.principal, Endpoint: t.endpoint, Via: model.ViaMCP, Method: "POST",
				RequestID: st.requestID, Started: st.started}
			var in In
			var out Out
			args, maxTokens, err := takeMaxTokens(req.Params.Arguments, h.opts.MaxTokens)
			if err == nil {
				err = decodeArguments(args, &in)
			}
			if err == nil {
				if class := billing.ClassOf(t.endpoint); class != "" {
					_, err = h.biller.Admit(ctx, call.Principal, class)
				}
			}
			end := func() {}
			if err == nil && !ownSlot[t.name] {
				end, err = h.biller.StartCall(ctx, call.Principal, t.endpoint)
			}
			if err == nil {
				out, err = runSafely(h, st, func() (Out, error) { return run(ctx, call, in) })
				end()
			}
			status := model.Status(model.ErrorCode(err))
			if err != nil && call.ErrorCode == "" {
				call.ErrorCode = model.ErrorCode(err)
			}
			// A no-op when the primitive settled the call; otherwise (it failed
			// before billing) it writes the 0-credit rows.
			if ferr := h.biller.Finish(ctx, call, 0, status); ferr != nil {
				h.log.Error("record mcp usage", "err", ferr, "request_id", st.requestID)
			}
			if err != nil {
				return errorResult(err), nil
			}
			return textResult(t.name, out, maxTokens), nil
		})
}

// runSafely runs a tool's primitive, turning a panic into an internal
// error: the SDK runs tool handlers on goroutines of its own, where a
// panic would not reach the HTTP server's recovery and would end the
// process.
func runSafely[Out any](h *Handler, st *reqState, run func() (Out, error)) (out Out, err error) {
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("mcp tool panic", "request_id", st.requestID, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return run()
}

// errorResult is a failed primitive as an MCP tool result: `<code>: <message>`
// with the client-safe message only. Internal errors say no more than that.
func errorResult(err error) *sdk.CallToolResult {
	code := model.ErrorCode(err)
	msg := model.ErrorMessage(err)
	if code == model.CodeInternal {
		code, msg = model.CodeUnavailable, "internal error"
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: code + ": " + msg}}}
}

// textResult is one text item holding the JSON data payload, capped to
// maxTokens (capResult).
func textResult(tool string, v any, maxTokens int) *sdk.CallToolResult {
	b, err := capResult(tool, v, maxTokens)
	if err != nil {
		return errorResult(fmt.Errorf("marshal result: %w", err))
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}
}
