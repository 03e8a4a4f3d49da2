package monitor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	xhtml "golang.org/x/net/html"

	"webacq/internal/acquire"
	"webacq/internal/alert"
	"webacq/internal/billing"
	"webacq/internal/content"
	"webacq/internal/fetch"
	"webacq/internal/metrics"
	"webacq/internal/model"
	"webacq/internal/monitor/detect"
	"webacq/internal/store"
)

// DocumentLimit is the spec's 25 MB document passthrough (section 8).
const DocumentLimit = 25 << 20

// maxDocProbes bounds how many linked documents a changed run sizes up.
const maxDocProbes = 5

// RunEndpoint names monitor runs in the usage and activity logs.
const RunEndpoint = "/api/v1/monitor/run"

// AddWorkers registers the check and preview workers (alert.Service
// registers the delivery worker).
func (s *Service) AddWorkers(w *river.Workers) {
	river.AddWorker(w, &checkWorker{s: s})
	river.AddWorker(w, &previewWorker{s: s})
	river.AddWorker(w, river.WorkFunc(s.sweepPreviews))
}

type checkWorker struct {
	river.WorkerDefaults[CheckArgs]
	s *Service
}

// Timeout bounds a check: its fetch, the browser tier, conversion, the
// locked extraction of a changed run and the write.
func (w *checkWorker) Timeout(*river.Job[CheckArgs]) time.Duration {
	return 2*w.s.timeout() + w.s.extractTimeout() + 30*time.Second
}

func (w *checkWorker) Work(ctx context.Context, job *river.Job[CheckArgs]) error {
	return w.s.check(ctx, job)
}

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 60 * time.Second
}

// observation is what a check saw, before it is recorded.
type observation struct {
	run *model.Run
	// cost is what the run is billed: its fetch tier, plus extractCost
	// when the locked extraction ran.
	cost, extractCost int64
	// state, when set, is the monitor's new anchor and snapshot; nil keeps
	// them (unchanged, failures).
	anchor   json.RawMessage
	snapshot *string
	reanchor bool // the next run anchors afresh
	// validators of the conditional GET, and the raw body's hash.
	etag, lastModified, bodyHash string
	keepValidators               bool
	title                        string
	url                          string
	// channel is set on a feed channel's observation (not the page's);
	// state, when set, is that channel's new state.
	channel string
	state   *channelState
}

// check runs a monitor's due check and records it with its bill and the
// next due time in one transaction, then snoozes the job until that time:
// a worker that dies before the commit leaves nothing (the job is retried
// and checks again), one that dies after it leaves the whole run (the retry
// finds the run of that due time, or a due time still ahead, and snoozes).
func (s *Service) check(ctx context.Context, job *river.Job[CheckArgs]) error {
	m, err := s.Store.MonitorByID(ctx, job.Args.MonitorID)
	if model.ErrorCode(err) == model.CodeNotFound {
		return nil // deleted since
	}
	if err != nil {
		return s.later(ctx, err)
	}
	if m.JobID != job.ID {
		return nil // paused, or superseded by a newer job
	}
	due := m.NextCheckAt
	if wait := due.Sub(s.now()); wait > time.Second {
		return river.JobSnooze(wait) // woken early: a retry after a crash, or a later due time
	}
	// A worker of the node: a workspace past its share borrows only an
	// idle one, while no other workspace's check waits; without one, the
	// check gives its River job back within shareWait.
	if s.Workers > 0 {
		done, ok := s.workers.acquire(ctx, "", m.WorkspaceID, s.Workers, s.share(s.Workers), shareWait)
		if !ok {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return river.JobSnooze(busySnooze(job.ID))
		}
		defer done()
	}
	metrics.CheckLate(s.now().Sub(due))
	// A check that died mid-way (the node was killed, or it overran its
	// job's timeout) comes back as a later attempt of the same due time:
	// snoozes give their attempt back, so job.Attempt-1 is how many times
	// this due time's check was aborted. Once, and it runs with a smaller
	// memory allowance; twice, and it is recorded as an error instead of
	// trying a third time what may be what kills the node.
	aborted := job.Attempt - 1
	var obs []*observation
	if aborted >= 2 {
		obs = append(obs, s.abortedTwice(m, due))
	} else if pageChannel(m) {
		release, ok := s.hosts.acquire(ctx, m.Host, m.WorkspaceID, s.perHost(), s.share(s.perHost()), hostWait)
		if !ok {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return river.JobSnooze(busySnooze(job.ID))
		}
		// The host's slot bounds what the site sees: it is given back
		// once the page is fetched, before the parse.
		var once sync.Once
		fetched := func() { once.Do(release) }
		o := s.observe(ctx, m, due, s.allowance(aborted), fetched)
		fetched()
		s.extractRun(ctx, m, o)
		obs = append(obs, o)
	}
	states := channelStates(m)
	for _, ch := range feedChannels(m) {
		if aborted >= 2 {
			break
		}
		obs = append(obs, s.observeFeed(ctx, m, ch, states[ch], due))
	}
	next, err := s.record(ctx, job, m, obs)
	if err != nil {
		return s.later(ctx, err)
	}
	if next.IsZero() {
		return nil // no further check: deleted, paused or superseded while it ran
	}
	return river.JobSnooze(max(next.Sub(s.now()), 0))
}

// abortedTwice is the run of a check whose job died twice at the same due
// time: outcome error, no fetch, so that the monitor moves on to its next
// due time and its owner hears of it.
func (s *Service) abortedTwice(m *model.Monitor, due time.Time) *observation {
	now := s.now()
	run := &model.Run{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: m.WorkspaceID, DueAt: due, StartedAt: now,
		FinishedAt: now, Channel: channelOf(m), Tier: model.TierNone, Outcome: model.OutcomeError,
		Error: "check aborted twice: the node stopped or timed out twice while checking this page " +
			"(a page too large or too slow for this node); the next check is at the monitor's next due time"}
	return &observation{run: run, keepValidators: true, url: m.URL}
}

// allowance is the most of the node's memory budget a check's parse may
// take: the whole budget normally, a quarter after the check was aborted
// once (0: no bound of its own).
func (s *Service) allowance(aborted int) int64 {
	if aborted < 1 || s.Budget == nil {
		return 0
	}
	return s.Budget.Capacity() / 4
}

// acquirer is the node's acquisition path (internal/acquire) over the
// service's tiers and memory budget.
func (s *Service) acquirer() *acquire.Acquirer {
	return &acquire.Acquirer{HTTP: s.HTTP, Browser: s.Browser, Budget: s.Budget}
}

// retryAfterFailure is how long a check that could not reach the database
// waits before it tries again.
const retryAfterFailure = 30 * time.Second

// later turns a failure of the worker (the database, not the site) into a
// snooze: the monitor's only job must not use up its attempts and vanish.
func (s *Service) later(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	if s.Log != nil {
		s.Log.Warn("monitor check failed; retrying", "err", err)
	}
	return river.JobSnooze(retryAfterFailure)
}

func (s *Service) perHost() int {
	if s.PerHost > 0 {
		return s.PerHost
	}
	return 4
}

// channelOf names the channel a monitor's page check serves.
func channelOf(m *model.Monitor) string {
	for _, c := range m.Channels {
		if c == model.ChannelDirectPDF {
			return c
		}
	}
	return model.ChannelIRPage
}

// observe fetches the monitor's URL and decides the outcome. allowance,
// when above zero, bounds the memory its parse may take; fetched is called
// once the page is fetched (it gives the host's slot back).
func (s *Service) observe(ctx context.Context, m *model.Monitor, due time.Time, allowance int64,
	fetched func()) *observation {
	now := s.now()
	run := &model.Run{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: m.WorkspaceID, DueAt: due, StartedAt: now,
		Channel: channelOf(m), Tier: model.TierNone, ContentHash: lastHash(m)}
	o := &observation{run: run, keepValidators: true, url: m.URL}
	defer func() { run.FinishedAt = s.now() }()
	fail := func(outcome, msg string) *observation {
		run.Outcome, run.Error = outcome, msg
		return o
	}

	if bal, err := s.Store.Balance(ctx, m.WorkspaceID); err != nil {
		return fail(model.OutcomeError, "database error: "+model.ErrorMessage(err))
	} else if bal < billing.FetchHTTP {
		return fail(model.OutcomeError, model.CodeCreditsExhausted)
	}
	anchoring := !m.AnchorSet() || m.Reanchor
	req := fetch.Request{URL: m.URL, Timeout: s.timeout()}
	if !anchoring {
		req.IfNoneMatch, req.IfModifiedSince = m.ETag, m.LastModified
	}
	resp, tier, err := s.get(ctx, m, req)
	fetched()
	if err != nil {
		var big *fetch.TooLargeError
		if errors.As(err, &big) {
			run.Tier, o.cost = model.TierHTTP, billing.FetchHTTP
			run.SizeBytes, run.PDFLinks = big.Size, []string{m.URL}
			return fail(model.OutcomePayloadTooLarge,
				fmt.Sprintf("the document is larger than the %d MB passthrough limit", DocumentLimit>>20))
		}
		return fail(model.OutcomeError, model.ErrorCode(err)+": "+model.ErrorMessage(err))
	}
	run.Tier, run.StatusCode, o.cost = tier, resp.StatusCode, billing.FetchCost(tier)
	if resp.NotModified {
		run.Outcome = model.OutcomeUnchanged
		return o
	}
	if blocked(resp) {
		// Like a fetch that no tier could pass, a blocked check is not
		// billed: the owner paid for a page and got a wall.
		o.cost = 0
		return fail(model.OutcomeBlocked, fmt.Sprintf("the site refused the check (HTTP %d, %s) on every tier tried",
			resp.StatusCode, content.Classify(resp.StatusCode, resp.Body, nil)))
	}
	if resp.StatusCode >= 400 {
		return fail(model.OutcomeError, fmt.Sprintf("the site answered HTTP %d", resp.StatusCode))
	}
	run.SizeBytes = int64(len(resp.Body))
	o.keepValidators = false
	o.etag, o.lastModified = resp.ETag, resp.LastModified
	sum := sha256.Sum256(resp.Body)
	o.bodyHash = hex.EncodeToString(sum[:])
	if !anchoring && o.bodyHash == m.BodyHash {
		run.Outcome = model.OutcomeUnchanged
		return o
	}
	// The parse takes the node's memory budget first: an element-dense
	// page of 24 MB holds about 600 MB while it is parsed and watched.
	release, err := s.parseBudget(ctx, resp, allowance)
	if err != nil {
		return fail(model.OutcomeError, model.ErrorMessage(err))
	}
	defer release()
	doc, title, err := parse(ctx, resp)
	if err != nil {
		return fail(model.OutcomeError, "the page could not be read: "+model.ErrorMessage(err))
	}
	o.title = title
	page := resp.FinalURL
	if anchoring {
		region, err := detect.Anchor(doc, page, m.DiscoveryKeywords)
		if errors.Is(err, detect.ErrKeywordsNotFound) {
			return fail(model.OutcomeError, ErrKeywordsMatchedNothing)
		}
		if err != nil {
			return fail(model.OutcomeError, "the page has no content to watch: "+err.Error())
		}
		s.keep(o, region)
		run.Outcome, run.TopScore = model.OutcomeAnchored, score(100)
		run.PDFLinks = detect.DocumentLinks(region.Fingerprint)
		run.Snapshot = o.snapshot
		run.ContentPreview = preview(region.Markdown)
		return o
	}
	var prev detect.Fingerprint
	if err := json.Unmarshal(m.Anchor, &prev); err != nil {
		o.reanchor = true
		return fail(model.OutcomeError, "the stored anchor is unreadable; the next check anchors afresh")
	}
	region, err := detect.Relocate(doc, page, &prev)
	if errors.Is(err, detect.ErrKeywordsNotFound) {
		return fail(model.OutcomeError, ErrKeywordsMatchedNothing)
	}
	if err != nil || region == nil {
		o.reanchor = true
		return fail(model.OutcomeRelocationFailed, "the watched region is gone from the page; the next check anchors afresh")
	}
	run.TopScore = score(region.Score)
	if region.Lost() {
		o.reanchor = true
		run.Snapshot = &region.Markdown
		return fail(model.OutcomeRelocationFailed, fmt.Sprintf(
			"the watched region was not found (best candidate scored %.0f of 100, threshold %.0f); the next check anchors afresh",
			region.Score, detect.RelocateThreshold))
	}
	change := detect.Compare(&prev, region.Fingerprint, m.DiscoveryKeywords)
	s.keep(o, region)
	switch {
	case !change.Changed:
		run.Outcome = model.OutcomeUnchanged
		run.Snapshot = nil
	case !change.Material:
		run.Outcome, run.Suppressed = model.OutcomeUnchanged, true
		d := detect.Diff(m.Snapshot, region.Markdown)
		run.Diff = &d
	default:
		run.Outcome = model.OutcomeChanged
		run.ChangeSignal = toSignals(change.Signals)
		run.PDFLinks = change.PDFLinks
		run.ContentPreview = change.Preview
		d := detect.Diff(m.Snapshot, region.Markdown)
		run.Diff = &d
		s.sizeDocuments(ctx, run)
	}
	if prev.Scope == "" && len(m.DiscoveryKeywords) > 0 {
		// A region stored before keyword scopes watched one container of
		// keyword blocks: from this run on, every one is watched. The run
		// compared the old region; the next compares the scope.
		if wider, err := detect.Anchor(doc, page, m.DiscoveryKeywords); err == nil {
			snapshot := run.Snapshot
			s.keep(o, wider)
			run.Snapshot = snapshot
		}
	}
	return o
}

// ErrKeywordsMatchedNothing is the error of a run on a page where no
// discovery keyword matches any content (DECISIONS.md, Monitors).
const ErrKeywordsMatchedNothing = "discovery keywords matched no content on the page"

// score returns a run's top_score.
func score(v float64) *float64 { return &v }

// parseWait bounds how long a check waits for the memory its parse needs
// before it gives up for this due time.
const parseWait = time.Minute

// parseBudget takes the memory budget a parse of resp needs, waiting at
// most parseWait (or the check's time) for it; the error says why the
// check cannot go on.
func (s *Service) parseBudget(ctx context.Context, resp *fetch.Response, allowance int64) (func(), error) {
	wctx, cancel := context.WithTimeout(ctx, parseWait)
	defer cancel()
	release, err := s.acquirer().Parse(wctx, resp.Kind, resp.Body, allowance)
	switch {
	case err == nil:
		return release, nil
	case model.ErrorCode(err) == model.CodeTimeout:
		return nil, model.Errorf(model.CodeTimeout, "this node's memory budget stayed full for %s while other pages "+
			"were parsed; the next check tries again", parseWait)
	case allowance > 0:
		return nil, model.Errorf(model.CodeUpstreamError, "the check was aborted once (the node stopped or it timed out) "+
			"and was retried with a smaller memory allowance, which this page exceeds: %s", model.ErrorMessage(err))
	}
	return nil, err
}

// get fetches the monitor's URL through the node's acquisition path: HTTP
// and, when the site walls it off (acquire.Escalate) and a browser tier
// exists, again in the browser with the monitor's accept_selectors
// clicked. It returns the answer that counts and the tier that gave it; a
// browser that fails leaves the HTTP answer.
func (s *Service) get(ctx context.Context, m *model.Monitor, req fetch.Request) (*fetch.Response, string, error) {
	steps := s.acquirer().Get(ctx, acquire.Request{URL: m.URL, Timeout: req.Timeout, AcceptSelectors: m.AcceptSelectors,
		IfNoneMatch: req.IfNoneMatch, IfModifiedSince: req.IfModifiedSince}, judge)
	last := steps[len(steps)-1]
	if last.Err != nil && len(steps) > 1 {
		last = steps[len(steps)-2]
	}
	if last.Err != nil {
		return nil, "", last.Err
	}
	return last.Resp, last.Tier, nil
}

// judge classifies an answer for acquire.Escalate without converting it:
// a check parses only the tier's answer that counts.
func judge(_ context.Context, _ string, r *fetch.Response) (content.Verdict, error) {
	if r.Kind != fetch.KindHTML && !refusing(r.StatusCode) {
		return content.VerdictOK, nil
	}
	return content.Classify(r.StatusCode, r.Body, nil), nil
}

func refusing(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// keep makes region the monitor's new anchor and snapshot.
func (s *Service) keep(o *observation, region *detect.Region) {
	b, err := json.Marshal(region.Fingerprint)
	if err != nil {
		return
	}
	o.anchor = b
	md := region.Markdown
	o.snapshot = &md
	o.run.Snapshot = &md
	o.run.ContentHash = region.Fingerprint.Hash
}

// sizeDocuments turns a change into payload_too_large when a document it
// links is over the passthrough limit, sized from its headers alone.
func (s *Service) sizeDocuments(ctx context.Context, run *model.Run) {
	for i, link := range run.PDFLinks {
		if i == maxDocProbes {
			break
		}
		size, err := s.HTTP.Size(ctx, link)
		if err == nil && size > DocumentLimit {
			run.Outcome, run.SizeBytes = model.OutcomePayloadTooLarge, size
			run.Error = fmt.Sprintf("%s is larger than the %d MB passthrough limit", link, DocumentLimit>>20)
			return
		}
	}
}

func lastHash(m *model.Monitor) string {
	var f struct {
		Hash string `json:"hash"`
	}
	if len(m.Anchor) > 0 && json.Unmarshal(m.Anchor, &f) == nil {
		return f.Hash
	}
	return ""
}

// blocked reports a bot wall or a refusal: the outcome `blocked` of the
// answer that counts. Which answers go on to the browser first is
// acquire.Escalate's to say (a plain 429 or 503 does not).
func blocked(r *fetch.Response) bool {
	if refusing(r.StatusCode) {
		return true
	}
	if r.Kind != fetch.KindHTML {
		return false
	}
	switch content.Classify(r.StatusCode, r.Body, nil) {
	case content.VerdictBlocked, content.VerdictCaptcha:
		return true
	}
	return false
}

// maxParseBytes bounds what a check parses (the fetch already caps bodies).
const maxParseBytes = DocumentLimit

// parse makes a tree of the page: HTML as is; PDF and text as one
// paragraph per line, so that the same detection serves documents.
func parse(ctx context.Context, r *fetch.Response) (*xhtml.Node, string, error) {
	body := r.Body
	if len(body) > maxParseBytes {
		return nil, "", fmt.Errorf("page over %d MB", maxParseBytes>>20)
	}
	switch r.Kind {
	case fetch.KindHTML, fetch.KindXML:
		doc, err := content.ParseHTML(body)
		if err != nil {
			return nil, "", err
		}
		return doc, "", nil
	case fetch.KindPDF:
		d, err := content.PDF(ctx, body)
		if err != nil {
			return nil, "", err
		}
		return linesDoc(d.Text), d.Metadata.Title, nil
	}
	return linesDoc(string(body)), "", nil
}

// linesDoc builds <html><body><main><p>line</p>…</main></body></html>.
func linesDoc(text string) *xhtml.Node {
	var b strings.Builder
	b.WriteString("<html><body><main>")
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			b.WriteString("<p>" + html.EscapeString(line) + "</p>")
		}
	}
	b.WriteString("</main></body></html>")
	doc, _ := xhtml.Parse(strings.NewReader(b.String()))
	return doc
}

func preview(md string) string { return excerpt(md, 500) }

// excerpt is md cut to at most n bytes, on a character boundary, with an
// ellipsis when cut.
func excerpt(md string, n int) string {
	md = strings.TrimSpace(md)
	if len(md) <= n {
		return md
	}
	cut := n
	for cut > 0 && !utf8Start(md[cut]) {
		cut--
	}
	return md[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func toSignals(in []detect.Signal) []model.Signal {
	out := make([]model.Signal, len(in))
	for i, s := range in {
		out[i] = model.Signal{Field: s.Field, From: s.From, To: s.To, Ratio: s.Ratio}
	}
	return out
}

// record writes the observations of a check (the page's, then each feed
// channel's: one run each), their bill, the monitor's new state and its next
// due time in one transaction, and returns that time (zero: no further
// check by this job).
func (s *Service) record(ctx context.Context, job *river.Job[CheckArgs], m *model.Monitor, obs []*observation) (time.Time, error) {
	// Where alerts go is read before the transaction: on PostgreSQL a read
	// from the pool inside it could wait for a connection that other
	// checks' transactions hold, while they wait for the same.
	dests, err := s.Alerts.Destinations(ctx, m)
	if err != nil {
		return time.Time{}, err
	}
	release, err := s.writeSlot(ctx)
	if err != nil {
		return time.Time{}, err
	}
	defer release()
	next, indexed, err := s.recordTx(ctx, job, obs, true, dests)
	if errors.Is(err, errUnpaid) {
		// The workspace may still pay the fetches: the runs alert without
		// the page's extraction.
		dropped := false
		for _, o := range obs {
			if o.extractCost > 0 {
				o.unpaidExtraction()
				dropped = true
			}
		}
		if dropped {
			next, indexed, err = s.recordTx(ctx, job, obs, true, dests)
		}
	}
	if errors.Is(err, errUnpaid) {
		for _, o := range obs {
			o.unpaid()
		}
		next, indexed, err = s.recordTx(ctx, job, obs, false, dests)
	}
	if err != nil {
		return time.Time{}, err
	}
	for _, o := range obs {
		metrics.MonitorRun(o.run.Outcome)
		metrics.CreditsDrawn(RunEndpoint, o.cost)
	}
	if indexed != nil && s.Index != nil {
		s.Index(ctx, indexed.run.WorkspaceID, indexed.url, indexed.title, *indexed.run.Snapshot)
	}
	return next, nil
}

// writeSlot waits until fewer than writeSlots checks of this node are
// writing their runs, and returns the function that ends this one's turn.
// Every run's transaction ends by drawing its workspace's credits from one
// row; with all of a node's runners (75 by default) committing at once, the
// transactions queued on that row inside PostgreSQL, and each commit woke
// them all to fight for it again: the database's CPU went to lock handling
// (backends 3.7 ms per unchanged check instead of 1.5). Queued here, before
// the transaction begins, only a few wait on the row. SQLite has one writer
// anyway.
func (s *Service) writeSlot(ctx context.Context) (func(), error) {
	s.writersOnce.Do(func() { s.writers = make(chan struct{}, writeSlots()) })
	select {
	case s.writers <- struct{}{}:
		return func() { <-s.writers }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// writeSlots is how many checks of a node write their runs at once: enough
// to keep the database's cores busy while the node works between
// statements, few enough that they do not queue on a workspace's row.
func writeSlots() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// errUnpaid rolls back a run whose workspace could not pay for it.
var errUnpaid = errors.New("monitor: the workspace cannot pay for the run")

// unpaid turns the observation into the run of a workspace that could not
// pay: outcome error, credits_exhausted, nothing of what was seen kept.
func (o *observation) unpaid() {
	r := o.run
	o.run = &model.Run{ID: r.ID, MonitorID: r.MonitorID, WorkspaceID: r.WorkspaceID, DueAt: r.DueAt,
		StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Channel: r.Channel, Tier: r.Tier, StatusCode: r.StatusCode,
		Outcome: model.OutcomeError, Error: model.CodeCreditsExhausted}
	o.cost, o.anchor, o.snapshot, o.keepValidators, o.reanchor, o.state = 0, nil, nil, true, false, nil
}

// recordTx is record's transaction. The credits are drawn last: on
// PostgreSQL that locks the workspace's row, which every check of the
// workspace needs, so it is held only until the commit. indexed is the
// page observation whose region goes into the search index.
func (s *Service) recordTx(ctx context.Context, job *river.Job[CheckArgs], obs []*observation, pay bool,
	dests []alert.Target) (next time.Time, indexed *observation, err error) {
	if len(obs) == 0 {
		return time.Time{}, nil, nil
	}
	due := obs[0].run.DueAt
	err = s.Store.InTx(ctx, func(tx store.Tx) error {
		indexed = nil
		// A run lost whole in a database crash (with its bill and its next
		// due time) is only checked again, so its commit does not wait for
		// the disk: the workspace row the bill locks is held microseconds,
		// not a WAL flush.
		if err := s.Store.AsyncCommit(ctx, tx); err != nil {
			return err
		}
		m, err := s.Store.MonitorTx(ctx, tx, job.Args.MonitorID)
		if model.ErrorCode(err) == model.CodeNotFound {
			return nil // deleted while it ran
		}
		if err != nil {
			return err
		}
		if done, err := s.Store.RunDone(ctx, tx, m.ID, due); err != nil {
			return err
		} else if done {
			if m.JobID == job.ID {
				next = m.NextCheckAt
			}
			return nil
		}
		var charges []billing.Charge
		for _, o := range obs {
			run := o.run
			if !pay && o.channel == "" {
				run.ContentHash = lastHash(m)
			}
			run.Credits = o.cost
			if err := s.Store.InsertRun(ctx, tx, run); err != nil {
				return err
			}
			if pay {
				if err := s.Alerts.QueueRun(ctx, tx, m, run, dests); err != nil {
					return err
				}
			}
			charges = append(charges, runCharge(m, run))
			if run.Snapshot != nil && o.channel == "" &&
				(run.Outcome == model.OutcomeAnchored || run.Outcome == model.OutcomeChanged) {
				indexed = o
			}
		}
		if err := s.apply(m, obs); err != nil {
			return err
		}
		switch {
		case m.JobID != job.ID: // paused, or resumed with a newer job, while it ran
		case m.Status == model.MonitorPaused: // a paused monitor checked once
			m.JobID = 0
		case !m.NextCheckAt.Equal(due): // checked now or rescheduled while it ran
			next = m.NextCheckAt
		default:
			m.NextCheckAt = nextDue(m, due, s.now()).UTC().Truncate(time.Millisecond)
			next = m.NextCheckAt
		}
		if err := s.Store.UpdateMonitor(ctx, tx, m); err != nil {
			return err
		}
		// An unpaid record (pay false) carries no credits: its charges
		// only log the runs.
		if paid, err := billing.ChargeTx(ctx, s.Store, tx, charges...); err != nil {
			return err
		} else if !paid {
			return errUnpaid
		}
		return nil
	})
	return next, indexed, err
}

// apply moves the monitor's state past a check's runs (DECISIONS.md,
// Monitors: five checks in a row that only erred make it `error`; any other
// outcome makes it `active` again). The monitor's last outcome and score
// are those of the check's most telling run.
func (s *Service) apply(m *model.Monitor, obs []*observation) error {
	lead, allErrors := obs[0], true
	states := channelStates(m)
	for _, o := range obs {
		run := o.run
		if rank(run.Outcome) > rank(lead.run.Outcome) {
			lead = o
		}
		if run.Outcome != model.OutcomeError {
			allErrors = false
		}
		if run.Outcome == model.OutcomeChanged || run.Outcome == model.OutcomePayloadTooLarge {
			finished := run.FinishedAt
			m.LastChanged = &finished
		}
		if o.channel != "" {
			if o.state != nil {
				states[o.channel] = *o.state
			}
			continue
		}
		if o.anchor != nil {
			m.Anchor = o.anchor
			m.Reanchor = false
		}
		if o.snapshot != nil {
			m.Snapshot = *o.snapshot
		}
		if o.reanchor {
			m.Reanchor = true
		}
		if !o.keepValidators {
			m.ETag, m.LastModified, m.BodyHash = o.etag, o.lastModified, o.bodyHash
		}
		if m.Reanchor {
			m.BodyHash = ""
		}
	}
	finished := lead.run.FinishedAt
	m.LastChecked, m.LastOutcome, m.TopScore = &finished, lead.run.Outcome, lead.run.TopScore
	if allErrors {
		m.ConsecutiveErrors++
		if m.ConsecutiveErrors >= errorsToFail && m.Status == model.MonitorActive {
			m.Status = model.MonitorError
		}
	} else {
		m.ConsecutiveErrors = 0
		if m.Status == model.MonitorError {
			m.Status = model.MonitorActive
		}
	}
	if len(states) > 0 {
		b, err := json.Marshal(states)
		if err != nil {
			return err
		}
		m.ChannelState = b
	}
	return nil
}

// rank orders outcomes by how much the owner needs to hear of them.
func rank(outcome string) int {
	switch outcome {
	case model.OutcomeChanged:
		return 6
	case model.OutcomePayloadTooLarge:
		return 5
	case model.OutcomeRelocationFailed:
		return 4
	case model.OutcomeBlocked:
		return 3
	case model.OutcomeError:
		return 2
	case model.OutcomeAnchored:
		return 1
	}
	return 0
}

// errorsToFail is how many error outcomes in a row turn a monitor to error.
const errorsToFail = 5

// runCharge is the bill of a monitor run: its usage and activity rows
// under RunEndpoint, with the credits it costs.
func runCharge(m *model.Monitor, run *model.Run) billing.Charge {
	status, code := http.StatusOK, ""
	if run.Error == model.CodeCreditsExhausted {
		status, code = http.StatusPaymentRequired, model.CodeCreditsExhausted
	}
	return billing.Charge{WorkspaceID: m.WorkspaceID, Endpoint: RunEndpoint, Via: "monitor", Method: "RUN",
		Target: m.ID, RequestID: run.ID, Tier: run.Tier, Status: status, ErrorCode: code, Credits: run.Credits,
		Started: run.StartedAt, Finished: run.FinishedAt}
}
