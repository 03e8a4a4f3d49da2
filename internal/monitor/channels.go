package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"webacq/internal/billing"
	"webacq/internal/channel/edgar"
	"webacq/internal/channel/wire"
	"webacq/internal/content"
	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/monitor/detect"
)

// Bounds of what one channel run reports and remembers.
const (
	maxSeen          = 500 // filing or release ids remembered per channel
	maxFreshReported = 5   // new filings described (and exhibits read) per run
	maxExhibits      = 3   // exhibits of one filing read for the preview
	snapshotItems    = 20  // latest items in a channel's snapshot
)

// channelState is what a channel besides the page remembers between runs.
type channelState struct {
	CIK          string   `json:"cik,omitempty"`
	Company      string   `json:"company,omitempty"` // the name wire items must carry
	Seen         []string `json:"seen"`              // ids already reported, newest first
	ETag         string   `json:"etag,omitempty"`
	LastModified string   `json:"last_modified,omitempty"`
	Snapshot     string   `json:"snapshot,omitempty"` // the latest items as markdown: runs' snapshot and diff
	Anchored     bool     `json:"anchored"`
}

// pageChannel tells whether the monitor checks its page (ir_page or
// direct_pdf); a monitor of only feeds does not fetch its URL.
func pageChannel(m *model.Monitor) bool {
	return slices.Contains(m.Channels, model.ChannelIRPage) || slices.Contains(m.Channels, model.ChannelDirectPDF)
}

// feedChannels are the monitor's channels besides the page, in spec order.
func feedChannels(m *model.Monitor) []string {
	var out []string
	for _, c := range []string{model.ChannelEdgar8K, model.ChannelBusinessWire, model.ChannelGlobeNewswire} {
		if slices.Contains(m.Channels, c) {
			out = append(out, c)
		}
	}
	return out
}

func channelStates(m *model.Monitor) map[string]channelState {
	out := map[string]channelState{}
	if len(m.ChannelState) > 0 {
		_ = json.Unmarshal(m.ChannelState, &out) // unreadable state anchors afresh
	}
	return out
}

// checkChannels refuses channels this node cannot serve, at registration
// and PATCH: each names the setting the operator must add.
func (s *Service) checkChannels(m *model.Monitor) error {
	for _, c := range feedChannels(m) {
		switch c {
		case model.ChannelEdgar8K:
			if s.EDGAR == nil {
				return badf("the edgar_8k channel is off on this node: the operator must set WEBACQ_SEC_USER_AGENT " +
					"(a name and contact email, as SEC's fair-access policy asks)")
			}
		default:
			if s.WireFeeds[c] == "" {
				return badf("the %s channel is off on this node: the operator must set WEBACQ_%s_FEED_URL", c, strings.ToUpper(c))
			}
			if m.Company == nil || (m.Company.Name == "" && (s.EDGAR == nil || m.Company.CIK == "" && m.Company.Ticker == "")) {
				return badf("the %s channel needs the company whose releases to follow: give company.name", c)
			}
		}
	}
	return nil
}

// observeFeed checks one channel besides the page.
func (s *Service) observeFeed(ctx context.Context, m *model.Monitor, ch string, st channelState, due time.Time) *observation {
	run := &model.Run{ID: uuid.NewString(), MonitorID: m.ID, WorkspaceID: m.WorkspaceID, DueAt: due, StartedAt: s.now(),
		Channel: ch, Tier: model.TierNone}
	o := &observation{run: run, channel: ch, keepValidators: true, url: m.URL}
	defer func() { run.FinishedAt = s.now() }()
	if bal, err := s.Store.Balance(ctx, m.WorkspaceID); err != nil {
		run.Outcome, run.Error = model.OutcomeError, "database error: "+model.ErrorMessage(err)
		return o
	} else if bal < billing.FetchHTTP {
		run.Outcome, run.Error = model.OutcomeError, model.CodeCreditsExhausted
		return o
	}
	var err error
	switch ch {
	case model.ChannelEdgar8K:
		err = s.observeEdgar(ctx, m, o, st)
	default:
		err = s.observeWire(ctx, m, o, st)
	}
	if err != nil {
		run.Outcome, run.Error = model.OutcomeError, model.ErrorCode(err)+": "+model.ErrorMessage(err)
	}
	return o
}

// observeEdgar finds the company's new 8-K filings.
func (s *Service) observeEdgar(ctx context.Context, m *model.Monitor, o *observation, st channelState) error {
	if s.EDGAR == nil {
		return model.Errorf(model.CodeUnavailable, "the edgar_8k channel is off on this node (WEBACQ_SEC_USER_AGENT)")
	}
	if st.CIK == "" {
		var links []string
		if m.Company == nil || (m.Company.CIK == "" && m.Company.Ticker == "" && m.Company.Name == "") {
			links = s.pageLinks(ctx, m)
		}
		co, err := s.EDGAR.Resolve(ctx, m.Company, links)
		if err != nil {
			return err
		}
		st.CIK, st.Company = co.CIK, co.Name
	}
	if !st.Anchored {
		st.ETag, st.LastModified = "", ""
	}
	sub, err := s.EDGAR.Filings(ctx, st.CIK, st.ETag, st.LastModified)
	if err != nil {
		return err
	}
	run := o.run
	run.Tier, run.StatusCode, o.cost = model.TierHTTP, 200, billing.FetchHTTP
	st.ETag, st.LastModified = sub.ETag, sub.LastModified
	if st.Company == "" {
		st.Company = sub.Name
	}
	if sub.NotModified {
		run.StatusCode, run.Outcome = 304, model.OutcomeUnchanged
		o.state = &st
		return nil
	}
	ids := make([]string, len(sub.Filings))
	for i, f := range sub.Filings {
		ids[i] = f.Accession
	}
	snapshot := edgarSnapshot(st, sub.Filings)
	if !st.Anchored {
		st.Seen, st.Anchored, st.Snapshot = bounded(ids), true, snapshot
		run.Outcome, run.TopScore, run.Snapshot = model.OutcomeAnchored, score(100), &snapshot
		if len(sub.Filings) > 0 {
			run.ContentPreview = "Latest 8-K: " + describeFiling(sub.Filings[0])
		}
		o.state = &st
		return nil
	}
	seen := map[string]bool{}
	for _, id := range st.Seen {
		seen[id] = true
	}
	var fresh []edgar.Filing
	for _, f := range sub.Filings {
		if !seen[f.Accession] {
			fresh = append(fresh, f)
		}
	}
	prevSnapshot := st.Snapshot
	st.Seen, st.Snapshot = bounded(append(ids, st.Seen...)), snapshot
	o.state = &st
	run.TopScore = score(100)
	if len(fresh) == 0 {
		run.Outcome = model.OutcomeUnchanged
		return nil
	}
	var hay, previews []string
	for i, f := range fresh {
		if i == maxFreshReported {
			to := fmt.Sprintf("and %d more 8-K filings", len(fresh)-i)
			run.ChangeSignal = append(run.ChangeSignal, model.Signal{Field: "filing", To: &to})
			break
		}
		to := describeFiling(f)
		run.ChangeSignal = append(run.ChangeSignal, model.Signal{Field: "filing:" + f.Accession, To: &to})
		hay = append(hay, to)
		docs, err := s.EDGAR.Documents(ctx, f)
		if err != nil && f.PrimaryDoc != "" {
			docs = []edgar.Document{{Type: f.Form, URL: f.PrimaryDoc}}
		}
		exhibits := 0
		for _, d := range docs {
			run.PDFLinks = append(run.PDFLinks, d.URL)
			if !strings.HasPrefix(d.Type, "EX-99") || exhibits == maxExhibits {
				continue
			}
			exhibits++
			if text := s.secText(ctx, d.URL); text != "" {
				hay = append(hay, text)
				previews = append(previews, d.Type+" "+f.Accession+": "+text)
			}
		}
	}
	run.ContentPreview = excerpt(strings.Join(append(previews, hay[0]), "\n\n"), 2000)
	if len(previews) == 0 {
		run.ContentPreview = excerpt(strings.Join(hay, "\n"), 2000)
	}
	d := detect.Diff(prevSnapshot, snapshot)
	run.Snapshot, run.Diff = &snapshot, &d
	if !carriesKeyword(strings.Join(hay, "\n"), m.DiscoveryKeywords) {
		run.Outcome, run.Suppressed = model.OutcomeUnchanged, true
		return nil
	}
	run.Outcome = model.OutcomeChanged
	return nil
}

// describeFiling is a filing in one line: form, date and items in words.
func describeFiling(f edgar.Filing) string {
	items := make([]string, len(f.Items))
	for i, it := range f.Items {
		items[i] = edgar.ItemName(it)
	}
	line := f.Form + " filed " + f.FiledAt + " (" + f.Accession + ")"
	if len(items) > 0 {
		line += ": " + strings.Join(items, "; ")
	}
	return line
}

func edgarSnapshot(st channelState, filings []edgar.Filing) string {
	var b strings.Builder
	b.WriteString("# 8-K filings of " + strings.TrimSpace(st.Company+" (CIK "+st.CIK+")") + "\n\n")
	for i, f := range filings {
		if i == snapshotItems {
			break
		}
		b.WriteString("- " + describeFiling(f) + "\n")
	}
	return b.String()
}

// secText reads an EDGAR document as text for the preview, within SEC's
// rate limit and with its User-Agent; "" when it cannot be read.
func (s *Service) secText(ctx context.Context, u string) string {
	if s.EDGAR.Wait != nil && s.EDGAR.Wait(ctx) != nil {
		return ""
	}
	a := s.acquirer()
	r, err := a.Fetch(ctx, fetch.Request{URL: u, Timeout: s.timeout(), Headers: map[string]string{"User-Agent": s.EDGAR.UserAgent}})
	if err != nil || r.StatusCode != 200 {
		return ""
	}
	release, err := a.Parse(ctx, r.Kind, r.Body, 0)
	if err != nil {
		return ""
	}
	defer release()
	var doc *content.Document
	switch r.Kind {
	case fetch.KindHTML:
		doc, err = content.HTML(r.Body, r.FinalURL, content.Options{})
	case fetch.KindPDF:
		doc, err = content.PDF(ctx, r.Body)
	default:
		doc = content.PlainText(r.Body)
	}
	if err != nil || doc == nil {
		return ""
	}
	return excerpt(strings.Join(strings.Fields(doc.Text), " "), 4000)
}

// pageLinks are the links of the monitor's page (to find its EDGAR filer).
func (s *Service) pageLinks(ctx context.Context, m *model.Monitor) []string {
	a := s.acquirer()
	r, err := a.Fetch(ctx, fetch.Request{URL: m.URL, Timeout: s.timeout()})
	if err != nil || r.StatusCode >= 400 || r.Kind != fetch.KindHTML {
		return nil
	}
	release, err := a.Parse(ctx, r.Kind, r.Body, 0)
	if err != nil {
		return nil
	}
	defer release()
	doc, err := content.HTML(r.Body, r.FinalURL, content.Options{IncludeLinks: true})
	if err != nil {
		return nil
	}
	links := make([]string, len(doc.Links))
	for i, l := range doc.Links {
		links[i] = l.URL
	}
	return links
}

// observeWire finds the company's new releases on a wire's feed.
func (s *Service) observeWire(ctx context.Context, m *model.Monitor, o *observation, st channelState) error {
	feedURL := s.WireFeeds[o.channel]
	if feedURL == "" || s.Wire == nil {
		return model.Errorf(model.CodeUnavailable, "the %s channel is off on this node (WEBACQ_%s_FEED_URL)",
			o.channel, strings.ToUpper(o.channel))
	}
	if st.Company == "" {
		name, err := s.companyName(ctx, m)
		if err != nil {
			return err
		}
		st.Company = name
	}
	if !st.Anchored {
		st.ETag, st.LastModified = "", ""
	}
	feed, err := s.Wire.Fetch(ctx, feedURL, st.ETag, st.LastModified)
	if err != nil {
		return err
	}
	run := o.run
	run.Tier, run.StatusCode, o.cost, run.TopScore = model.TierHTTP, 200, billing.FetchHTTP, score(100)
	st.ETag, st.LastModified = feed.ETag, feed.LastModified
	o.state = &st
	if feed.NotModified {
		run.StatusCode, run.Outcome = 304, model.OutcomeUnchanged
		return nil
	}
	mine := wire.Matching(feed.Items, st.Company, nil)
	ids := make([]string, len(feed.Items))
	for i, it := range feed.Items {
		ids[i] = it.ID
	}
	var b strings.Builder
	b.WriteString("# " + o.channel + " releases about " + st.Company + "\n\n")
	for i, it := range mine {
		if i == snapshotItems {
			break
		}
		b.WriteString("- " + it.String() + " " + it.Link + "\n")
	}
	snapshot := b.String()
	if !st.Anchored {
		st.Seen, st.Anchored, st.Snapshot = bounded(ids), true, snapshot
		run.Outcome, run.Snapshot = model.OutcomeAnchored, &snapshot
		if len(mine) > 0 {
			run.ContentPreview = "Latest release: " + mine[0].String()
		}
		return nil
	}
	seen := map[string]bool{}
	for _, id := range st.Seen {
		seen[id] = true
	}
	var fresh []wire.Item
	for _, it := range wire.Matching(feed.Items, st.Company, m.DiscoveryKeywords) {
		if !seen[it.ID] {
			fresh = append(fresh, it)
		}
	}
	prevSnapshot := st.Snapshot
	st.Seen, st.Snapshot = bounded(append(ids, st.Seen...)), snapshot
	if len(fresh) == 0 {
		run.Outcome = model.OutcomeUnchanged
		return nil
	}
	var previews []string
	for i, it := range fresh {
		if i == maxFreshReported {
			to := fmt.Sprintf("and %d more releases", len(fresh)-i)
			run.ChangeSignal = append(run.ChangeSignal, model.Signal{Field: "release", To: &to})
			break
		}
		to := it.String() + " " + it.Link
		run.ChangeSignal = append(run.ChangeSignal, model.Signal{Field: "release:" + it.ID, To: &to})
		previews = append(previews, it.Title+": "+it.Summary)
	}
	d := detect.Diff(prevSnapshot, snapshot)
	run.Outcome, run.Snapshot, run.Diff = model.OutcomeChanged, &snapshot, &d
	run.ContentPreview = excerpt(strings.Join(previews, "\n\n"), 2000)
	return nil
}

// companyName is the name wire releases must carry: the registration's,
// else EDGAR's name for its CIK or ticker.
func (s *Service) companyName(ctx context.Context, m *model.Monitor) (string, error) {
	if m.Company != nil && m.Company.Name != "" {
		return m.Company.Name, nil
	}
	if s.EDGAR != nil && m.Company != nil && (m.Company.CIK != "" || m.Company.Ticker != "") {
		co, err := s.EDGAR.Resolve(ctx, &model.Company{Ticker: m.Company.Ticker}, nil)
		if m.Company.CIK != "" {
			var sub *edgar.Submissions
			if sub, err = s.EDGAR.Filings(ctx, m.Company.CIK, "", ""); err == nil {
				co.Name = sub.Name
			}
		}
		if err == nil && co.Name != "" {
			return co.Name, nil
		}
	}
	return "", model.Errorf(model.CodeBadRequest, "the wire channels need the company's name: set company.name")
}

// carriesKeyword reports whether text mentions a keyword (any, without
// keywords).
func carriesKeyword(text string, keywords []string) bool {
	if len(keywords) == 0 {
		return true
	}
	low := strings.ToLower(text)
	for _, k := range keywords {
		if strings.Contains(low, strings.ToLower(k)) {
			return true
		}
	}
	return false
}

// bounded keeps the first maxSeen distinct ids.
func bounded(ids []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, min(len(ids), maxSeen))
	for _, id := range ids {
		if !seen[id] && len(out) < maxSeen {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
