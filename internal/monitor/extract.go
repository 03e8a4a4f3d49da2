package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"webacq/internal/billing"
	"webacq/internal/fetch"
	"webacq/internal/jobs"
	"webacq/internal/llm"
	"webacq/internal/model"
	"webacq/internal/monitor/detect"
	"webacq/internal/store"
)

// Limits of the extraction approval loop (documented with the endpoints).
const (
	maxRefinements     = 10
	maxRefinementLen   = 500
	maxLockedPromptLen = 10000
	maxSampleBytes     = 64 << 10
	maxSampleItems     = 100
	scopeExcerptLen    = 2000
	// extractChunks bounds the model calls of one preview or run: the
	// scoped region is usually one chunk.
	extractChunks = 8
)

// extractTimeout bounds one preview's or run's extraction: twice a check's
// fetch (WEBACQ_MONITOR_TIMEOUT, 2 minutes by default), so that the jobs'
// timeouts, which River waits out before it rescues a dead worker's job,
// follow the one setting.
func (s *Service) extractTimeout() time.Duration { return 2 * s.timeout() }

// PreviewEndpoint names previews in the usage and activity logs: the
// preview-extract route, also for the preview queued at registration.
const PreviewEndpoint = "/api/v1/monitor/{id}/preview-extract"

// PreviewRequest is the optional body of POST …/preview-extract.
type PreviewRequest struct {
	Refinement *string `json:"refinement"`
}

// ApproveRequest is the body of POST …/approve-extract; both fields are
// checked by type here, so that a wrong one is named.
type ApproveRequest struct {
	ExtractedSample json.RawMessage `json:"extracted_sample"`
	LockedPrompt    json.RawMessage `json:"locked_prompt"`
}

// PreviewResult is the answer of POST …/preview-extract (DECISIONS.md,
// Monitors: the preview response).
type PreviewResult struct {
	MonitorID       string       `json:"monitor_id"`
	Intent          string       `json:"intent"`
	Refinements     []string     `json:"refinements"`
	ScopeExcerpt    string       `json:"scope_excerpt"`
	Preview         PreviewFound `json:"preview"`
	SuggestedPrompt string       `json:"suggested_prompt"`
}

// PreviewFound is what a preview's extraction found.
type PreviewFound struct {
	Found bool             `json:"found"`
	Data  []map[string]any `json:"data"`
}

// PreviewArgs is the job of the preview a registration with an
// extract_intent asks for.
type PreviewArgs struct {
	MonitorID string `json:"monitor_id"`
}

// Kind names the job.
func (PreviewArgs) Kind() string { return "monitor_extract_preview" }

// previewBackoff is the wait before each retry of a preview whose site or
// model failed for a while; after the last, the failure is recorded.
var previewBackoff = []time.Duration{15 * time.Second, time.Minute, 5 * time.Minute}

// InsertOpts puts previews on the monitor queue.
func (PreviewArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: jobs.QueueMonitor, MaxAttempts: len(previewBackoff) + 1}
}

// queuePreview queues the registration's preview in its transaction when
// the monitor has an extract_intent (spec 3.3).
func (s *Service) queuePreview(ctx context.Context, tx store.Tx, m *model.Monitor) error {
	if m.ExtractIntent == "" {
		return nil
	}
	_, err := s.Queue.InsertTx(ctx, tx, PreviewArgs{MonitorID: m.ID}, nil)
	return err
}

type previewWorker struct {
	river.WorkerDefaults[PreviewArgs]
	s *Service
}

// Timeout bounds a preview: fetch, browser tier, extraction and the write.
func (w *previewWorker) Timeout(*river.Job[PreviewArgs]) time.Duration {
	return 2*w.s.timeout() + w.s.extractTimeout() + 30*time.Second
}

// NextRetry waits the backoff of the attempt.
func (w *previewWorker) NextRetry(job *river.Job[PreviewArgs]) time.Time {
	return time.Now().Add(previewBackoff[min(max(job.Attempt-1, 0), len(previewBackoff)-1)])
}

func (w *previewWorker) Work(ctx context.Context, job *river.Job[PreviewArgs]) error {
	return w.s.registrationPreview(ctx, job)
}

// registrationPreview makes the first preview of a monitor and records it
// with its bill in one transaction. A failure of the site or the model is
// retried (previewBackoff) and recorded after the last attempt; a missing
// model or credits are recorded at once, without calling the model. Once
// the monitor has a preview (this job's, after a crash between its commit
// and River's completion, or one asked for meanwhile) the job does nothing,
// so it never bills twice.
func (s *Service) registrationPreview(ctx context.Context, job *river.Job[PreviewArgs]) error {
	m, err := s.Store.MonitorByID(ctx, job.Args.MonitorID)
	if model.ErrorCode(err) == model.CodeNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if !needsPreview(m) {
		return nil
	}
	refs := m.Extraction.Refinements
	started := s.now()
	bal, err := s.Store.Balance(ctx, m.WorkspaceID)
	if err != nil {
		return err
	}
	var p *model.ExtractPreview
	tier := model.TierNone
	switch {
	case s.LLM == nil:
		p = s.failedPreview(llm.NotConfigured(), refs)
	case bal < billing.Preview:
		p = s.failedPreview(errNoPreviewCredits, refs)
	default:
		release, ok := s.hosts.acquire(ctx, m.Host, m.WorkspaceID, s.perHost(), s.share(s.perHost()), hostWait)
		if !ok {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return river.JobSnooze(5 * time.Second)
		}
		p, tier, err = s.previewExtract(ctx, m, refs)
		release()
		if err != nil {
			if retryable(err) && job.Attempt < job.MaxAttempts {
				return err
			}
			p = s.failedPreview(err, refs)
		}
	}
	return s.recordPreview(ctx, m.ID, p, tier, started)
}

// needsPreview reports whether the registration's preview is still to be
// made.
func needsPreview(m *model.Monitor) bool {
	x := m.Extraction
	return m.ExtractIntent != "" && x != nil && x.Preview == nil && !x.Approved()
}

var errNoPreviewCredits = model.Errorf(model.CodeCreditsExhausted, "not enough credits for the preview (%d credit)", billing.Preview)

// recordPreview stores the registration's preview, draws its credit when
// it succeeded and logs it, in one transaction; a workspace that cannot
// pay gets the preview's failure instead, logged without credits.
func (s *Service) recordPreview(ctx context.Context, id string, p *model.ExtractPreview, tier string, started time.Time) error {
	err := s.recordPreviewTx(ctx, id, p, tier, started)
	if errors.Is(err, errUnpaid) {
		err = s.recordPreviewTx(ctx, id, s.failedPreview(errNoPreviewCredits, p.Refinements), tier, started)
	}
	return err
}

func (s *Service) recordPreviewTx(ctx context.Context, id string, p *model.ExtractPreview, tier string, started time.Time) error {
	return s.Store.InTx(ctx, func(tx store.Tx) error {
		m, err := s.Store.MonitorTx(ctx, tx, id)
		if model.ErrorCode(err) == model.CodeNotFound {
			return nil
		}
		if err != nil || !needsPreview(m) {
			return err
		}
		var cost int64
		status, code := http.StatusOK, ""
		if p.Error == "" {
			cost = billing.Preview
		} else {
			code, _, _ = strings.Cut(p.Error, ":")
			status = model.Status(code)
		}
		if err := s.Store.SetExtractPreview(ctx, tx, m.ID, m.Extraction.Refinements, p); err != nil {
			return err
		}
		paid, err := billing.ChargeTx(ctx, s.Store, tx, billing.Charge{WorkspaceID: m.WorkspaceID,
			Endpoint: PreviewEndpoint, Via: "monitor", Method: "PREVIEW", Target: m.ID, RequestID: uuid.NewString(),
			Tier: tier, Status: status, ErrorCode: code, Credits: cost, Started: started, Finished: s.now()})
		if err != nil {
			return err
		}
		if !paid {
			return errUnpaid
		}
		return nil
	})
}

// retryable tells a passing failure of the site or the model from one
// that another attempt would only repeat.
func retryable(err error) bool {
	if errors.Is(err, errFinal) {
		return false
	}
	switch model.ErrorCode(err) {
	case model.CodeTimeout, model.CodeUnavailable, model.CodeRateLimited, model.CodeUpstreamError, model.CodeInternal:
		return !errors.Is(err, llm.ErrNotConfigured)
	}
	return false
}

// errFinal marks failures of a preview that trying again would repeat: the
// site answers 4xx or walls the fetch off, or the keywords are nowhere.
var errFinal = errors.New("monitor: permanent preview failure")

func (s *Service) failedPreview(err error, refs []string) *model.ExtractPreview {
	return &model.ExtractPreview{Data: []map[string]any{}, Refinements: refs,
		Error: model.ErrorCode(err) + ": " + model.ErrorMessage(err), CreatedAt: s.now()}
}

// scoped is the part of a monitor's page an extraction reads.
type scoped struct {
	markdown string
	url      string
	tier     string
}

// scope fetches the monitor's page as a check does (the browser tier when
// the site walls HTTP off) and returns the region a check would anchor:
// the container of the discovery-keyword matches, else the main content.
func (s *Service) scope(ctx context.Context, m *model.Monitor) (*scoped, error) {
	resp, tier, err := s.get(ctx, m, fetch.Request{URL: m.URL, Timeout: s.timeout()})
	if err != nil {
		return nil, err
	}
	if blocked(resp) {
		return nil, model.Wrap(model.CodeUpstreamError, errFinal,
			fmt.Sprintf("the site refused the fetch (HTTP %d) on every tier tried", resp.StatusCode))
	}
	if resp.StatusCode >= 500 {
		return nil, model.Errorf(model.CodeUpstreamError, "the site answered HTTP %d", resp.StatusCode)
	}
	if resp.StatusCode >= 400 {
		return nil, model.Wrap(model.CodeUpstreamError, errFinal, fmt.Sprintf("the site answered HTTP %d", resp.StatusCode))
	}
	// The parse takes the node's memory budget like a check's does.
	release, err := s.parseBudget(ctx, resp, 0)
	if model.ErrorCode(err) == model.CodeUpstreamError {
		// Over the whole share: another attempt would only repeat it.
		return nil, model.Wrap(model.CodeUpstreamError, errors.Join(errFinal, err), model.ErrorMessage(err))
	}
	if err != nil {
		return nil, err
	}
	defer release()
	doc, _, err := parse(ctx, resp)
	if err != nil {
		return nil, model.Wrap(model.CodeUpstreamError, errors.Join(errFinal, err), "the page could not be read")
	}
	region, err := detect.Anchor(doc, resp.FinalURL, m.DiscoveryKeywords)
	if errors.Is(err, detect.ErrKeywordsNotFound) {
		return nil, model.Wrap(model.CodeUpstreamError, errFinal, "none of the discovery keywords ("+
			strings.Join(m.DiscoveryKeywords, ", ")+") appears on the page: nothing to extract from")
	}
	if err != nil {
		return nil, model.Wrap(model.CodeUpstreamError, errors.Join(errFinal, err), "the page has no content to extract from")
	}
	return &scoped{markdown: region.Markdown, url: resp.FinalURL, tier: tier}, nil
}

// extract runs the model on a scoped region, bounded in time and calls.
func (s *Service) extract(ctx context.Context, in llm.ExtractInput) (*llm.Extraction, error) {
	if s.LLM == nil {
		return nil, llm.NotConfigured()
	}
	ctx, cancel := context.WithTimeout(ctx, s.extractTimeout())
	defer cancel()
	in.MaxChunks = extractChunks
	x, err := llm.Extract(ctx, s.LLM, in)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && model.ErrorCode(err) != model.CodeTimeout {
		return nil, model.Wrap(model.CodeTimeout, err, "the extraction did not finish within its timeout")
	}
	return x, err
}

// previewExtract fetches and scopes the monitor's page and extracts what
// its intent and refinements ask, returning the preview and the fetch tier.
func (s *Service) previewExtract(ctx context.Context, m *model.Monitor, refs []string) (*model.ExtractPreview, string, error) {
	sc, err := s.scope(ctx, m)
	if err != nil {
		return nil, model.TierNone, err
	}
	x, err := s.extract(ctx, llm.ExtractInput{Markdown: sc.markdown, URL: sc.url, Intent: m.ExtractIntent, Refinements: refs})
	if err != nil {
		return nil, sc.tier, err
	}
	return &model.ExtractPreview{Found: x.Found, Data: x.Data, ScopeExcerpt: excerpt(sc.markdown, scopeExcerptLen),
		Refinements: refs, SuggestedPrompt: llm.Instruction(m.ExtractIntent, "", refs), Model: s.LLM.Model(),
		CreatedAt: s.now()}, sc.tier, nil
}

// PreviewExtract is POST /api/v1/monitor/:id/preview-extract: it adds the
// refinement, if any, to the monitor's refinements, extracts synchronously
// and stores the preview. It is billed as call through b, 1 credit held
// before the work and kept only when the preview is stored; a monitor
// without an intent, a bad refinement or a missing model fail before
// anything is held.
func (s *Service) PreviewExtract(ctx context.Context, b *billing.Biller, call *billing.Call, id string, req PreviewRequest) (*PreviewResult, error) {
	m, err := s.Get(ctx, call.Principal, id)
	if err != nil {
		return nil, err
	}
	if m.ExtractIntent == "" {
		return nil, badf("this monitor has no extract_intent: register it with one to preview an extraction")
	}
	refinement, err := validateRefinement(req.Refinement)
	if err != nil {
		return nil, err
	}
	if len(m.Extraction.Refinements) >= maxRefinements && refinement != "" {
		return nil, errTooManyRefinements
	}
	if s.LLM == nil {
		return nil, llm.NotConfigured()
	}
	refs := m.Extraction.Refinements
	if refinement != "" {
		// The refinement takes its place under the cap before the model
		// is called: previews racing for the last place make one call.
		if refs, err = s.refine(ctx, m.ID, refinement, true); err != nil {
			return nil, err
		}
	}
	var res *PreviewResult
	err = b.Run(ctx, call, billing.Preview, func(ctx context.Context) (int64, error) {
		p, tier, err := s.previewExtract(ctx, m, refs)
		call.Tier = tier
		if err != nil {
			return 0, err
		}
		if err := s.storePreview(ctx, m.ID, p); err != nil {
			return 0, err
		}
		res = &PreviewResult{MonitorID: m.ID, Intent: m.ExtractIntent, Refinements: p.Refinements,
			ScopeExcerpt: p.ScopeExcerpt, Preview: PreviewFound{Found: p.Found, Data: p.Data},
			SuggestedPrompt: p.SuggestedPrompt}
		return billing.Preview, nil
	})
	if err != nil && refinement != "" {
		// A preview that failed keeps no refinement, as before the cap
		// was taken up front; the place is given back.
		if _, rerr := s.refine(context.WithoutCancel(ctx), m.ID, refinement, false); rerr != nil && s.Log != nil {
			s.Log.Warn("monitor: refinement of a failed preview not given back", "monitor", m.ID, "err", rerr)
		}
	}
	return res, err
}

var errTooManyRefinements = badf("this monitor already has %d refinements, the most it keeps", maxRefinements)

// refine adds the refinement to the monitor's stored ones (add) or takes
// its last copy away, under the row's lock, so that concurrent previews
// lose none and never pass the cap; it returns the refinements as stored.
func (s *Service) refine(ctx context.Context, id, refinement string, add bool) ([]string, error) {
	var refs []string
	err := s.Store.InTx(ctx, func(tx store.Tx) error {
		m, err := s.Store.MonitorTx(ctx, tx, id)
		if err != nil {
			return err
		}
		refs = slices.Clone(m.Extraction.Refinements)
		if add {
			if len(refs) >= maxRefinements {
				return errTooManyRefinements
			}
			refs = append(refs, refinement)
		} else {
			for i := len(refs) - 1; i >= 0; i-- {
				if refs[i] == refinement {
					refs = slices.Delete(refs, i, i+1)
					break
				}
			}
		}
		return s.Store.SetRefinements(ctx, tx, m.ID, refs)
	})
	return refs, err
}

// storePreview makes p the monitor's latest preview, with the refinements
// as stored (read again under the row's lock).
func (s *Service) storePreview(ctx context.Context, id string, p *model.ExtractPreview) error {
	return s.Store.InTx(ctx, func(tx store.Tx) error {
		m, err := s.Store.MonitorTx(ctx, tx, id)
		if err != nil {
			return err
		}
		return s.Store.SetExtractPreview(ctx, tx, m.ID, m.Extraction.Refinements, p)
	})
}

func validateRefinement(r *string) (string, error) {
	if r == nil {
		return "", nil
	}
	v := strings.TrimSpace(*r)
	if v == "" {
		return "", badf("refinement is empty: leave it out to preview with the refinements so far")
	}
	if utf8.RuneCountInString(v) > maxRefinementLen {
		return "", badf("refinement is longer than %d characters", maxRefinementLen)
	}
	if strings.ContainsFunc(v, isControl) {
		return "", badf("refinement must not contain control characters other than line breaks and tabs")
	}
	return v, nil
}

func isControl(r rune) bool { return (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f }

// ApproveExtract is POST /api/v1/monitor/:id/approve-extract: it locks the
// template (approved sample and prompt) that every later changed run
// extracts with; approving again replaces it.
func (s *Service) ApproveExtract(ctx context.Context, p *model.Principal, id string, req ApproveRequest) error {
	sample, err := validateSample(req.ExtractedSample)
	if err != nil {
		return err
	}
	prompt, err := validateLockedPrompt(req.LockedPrompt)
	if err != nil {
		return err
	}
	_, err = s.change(ctx, p, id, func(tx store.Tx, m *model.Monitor) error {
		return s.Store.ApproveExtract(ctx, tx, m.ID, sample, prompt, s.now())
	})
	return err
}

// validateSample checks that raw is {found: boolean, data: [objects]} and
// returns it compacted.
func validateSample(raw json.RawMessage) (json.RawMessage, error) {
	const shape = "extracted_sample must be an object {found: boolean, data: [objects]}"
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badf("extracted_sample is required: an object {found: boolean, data: [objects]}")
	}
	if len(raw) > maxSampleBytes {
		return nil, badf("extracted_sample is larger than %d KB", maxSampleBytes>>10)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, badf("%s", shape)
	}
	for k := range fields {
		if k != "found" && k != "data" {
			return nil, badf("extracted_sample has an unknown field %q: %s", k, shape)
		}
	}
	var sample model.ExtractedFields
	if f, ok := fields["found"]; !ok || json.Unmarshal(f, &sample.Found) != nil || string(f) == "null" {
		return nil, badf("extracted_sample.found must be a boolean")
	}
	var items []json.RawMessage
	if d, ok := fields["data"]; !ok || json.Unmarshal(d, &items) != nil || items == nil {
		return nil, badf("extracted_sample.data must be an array of objects")
	}
	if len(items) > maxSampleItems {
		return nil, badf("extracted_sample.data holds more than %d objects", maxSampleItems)
	}
	sample.Data = make([]map[string]any, len(items))
	for i, it := range items {
		if json.Unmarshal(it, &sample.Data[i]) != nil || sample.Data[i] == nil {
			return nil, badf("extracted_sample.data[%d] must be an object", i)
		}
	}
	b, err := json.Marshal(sample)
	if err != nil {
		return nil, badf("%s", shape)
	}
	return b, nil
}

func validateLockedPrompt(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", badf("locked_prompt is required: the instructions every changed run extracts with (the preview's suggested_prompt)")
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", badf("locked_prompt must be a string")
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return "", badf("locked_prompt is empty")
	}
	if utf8.RuneCountInString(v) > maxLockedPromptLen {
		return "", badf("locked_prompt is longer than %d characters", maxLockedPromptLen)
	}
	if strings.ContainsFunc(v, isControl) {
		return "", badf("locked_prompt must not contain control characters other than line breaks and tabs")
	}
	return v, nil
}

// extractRun runs the locked extraction of a changed run over the run's
// region, before the run's transaction (a model call never holds the
// database). Its result, or why it did not run, becomes the run's
// extracted_fields; it never changes the outcome, so the alert goes out
// either way. Only an extraction that ran is billed (billing.ExtractCost
// of the run's tier, on top of the fetch); one the workspace cannot pay
// besides the fetch does not run.
func (s *Service) extractRun(ctx context.Context, m *model.Monitor, o *observation) {
	x := m.Extraction
	if o.run.Outcome != model.OutcomeChanged || !x.Approved() || o.snapshot == nil {
		return
	}
	fields := model.ExtractedFields{Data: []map[string]any{}}
	defer func() { o.run.ExtractedFields = mustFields(fields) }()
	cost := billing.ExtractCost(o.run.Tier)
	if s.LLM == nil {
		fields.Error = model.CodeUnavailable + ": no language model is configured (WEBACQ_LLM_PROVIDER)"
		return
	}
	if bal, err := s.Store.Balance(ctx, m.WorkspaceID); err != nil {
		fields.Error = model.CodeUnavailable + ": database error: " + model.ErrorMessage(err)
		return
	} else if bal < o.cost+cost {
		fields.Error = extractCreditsError(cost)
		return
	}
	res, err := s.extract(ctx, llm.ExtractInput{Markdown: *o.snapshot, URL: o.url, Prompt: x.LockedPrompt,
		Example: x.ExtractedSample})
	if err != nil {
		fields.Error = model.ErrorCode(err) + ": " + model.ErrorMessage(err)
		return
	}
	fields.Found, fields.Data = res.Found, res.Data
	o.cost, o.extractCost = o.cost+cost, cost
}

func extractCreditsError(cost int64) string {
	return fmt.Sprintf("%s: not enough credits for the extraction (%d credits); the run's fetch was billed",
		model.CodeCreditsExhausted, cost)
}

// unpaidExtraction drops the extraction of a run whose workspace can pay
// its fetch but not both.
func (o *observation) unpaidExtraction() {
	o.run.ExtractedFields = mustFields(model.ExtractedFields{Data: []map[string]any{}, Error: extractCreditsError(o.extractCost)})
	o.cost, o.extractCost = o.cost-o.extractCost, 0
}

func mustFields(f model.ExtractedFields) json.RawMessage {
	b, err := json.Marshal(f)
	if err != nil {
		// Data comes from decoded JSON, which always encodes again.
		panic(fmt.Sprintf("monitor: encode extracted fields: %v", err))
	}
	return b
}
