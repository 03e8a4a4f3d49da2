package console

import (
	"cmp"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
)

// rowsPerPage is how many usage or activity rows a page lists.
const rowsPerPage = 100

// defaultDays is the range the credits pages show unless told otherwise.
const defaultDays = 30

// maxDays bounds the chart's range.
const maxDays = 366

// endpoints are offered in the endpoint filter (any other can be typed).
var endpoints = []string{"/api/v1/fetch", "/api/v1/search", "/api/v1/gyre", "/api/v1/extract", "/api/v1/map",
	monitor.RunEndpoint, monitor.PreviewEndpoint, "/api/v1/monitor/register", "/api/mcp", "/api/v1/health",
	"/api/v1/credits", "/api/v1/usage", "/api/v1/activity", "/api/v1/keys"}

// filterForm is the filter of the usage and activity pages as typed.
type filterForm struct {
	Key      string
	Endpoint string
	From     string // YYYY-MM-DD, UTC
	To       string
}

// logFilter reads the filter of a usage or activity page: dates are UTC
// days, both included; by default the last 30 days. before is the cursor
// of an older page.
func logFilter(r *http.Request, now time.Time) (filterForm, model.LogFilter, time.Time, time.Time, string) {
	q := r.URL.Query()
	ff := filterForm{Key: strings.TrimSpace(q.Get("key")), Endpoint: strings.TrimSpace(q.Get("endpoint")),
		From: q.Get("from"), To: q.Get("to")}
	today := now.UTC().Truncate(24 * time.Hour)
	to, err := time.Parse(time.DateOnly, ff.To)
	if err != nil {
		to = today
	}
	from, err := time.Parse(time.DateOnly, ff.From)
	if err != nil {
		from = to.AddDate(0, 0, -(defaultDays - 1))
	}
	if from.After(to) {
		from, to = to, from
	}
	if to.Sub(from) > maxDays*24*time.Hour {
		from = to.AddDate(0, 0, -maxDays)
	}
	ff.From, ff.To = from.Format(time.DateOnly), to.Format(time.DateOnly)
	f := model.LogFilter{KeyPrefix: ff.Key, Endpoint: ff.Endpoint, Since: from, Before: to.AddDate(0, 0, 1), Limit: rowsPerPage}
	msg := ""
	if v := q.Get("before"); v != "" {
		if b, err := time.Parse(time.RFC3339Nano, v); err == nil && b.Before(f.Before) {
			f.Before = b
		} else if err != nil {
			msg = "The page cursor was not understood; showing the newest rows."
		}
	}
	return ff, f, from, to, msg
}

// olderURL is the link to the page after rows (nil: there is none).
func olderURL(r *http.Request, n int, last time.Time) string {
	if n < rowsPerPage {
		return ""
	}
	q := r.URL.Query()
	q.Set("before", last.UTC().Format(time.RFC3339Nano))
	return r.URL.Path + "?" + q.Encode()
}

type creditsData struct {
	Summary   *model.CreditSummary
	Chart     template.HTML
	Total     int64
	Filter    filterForm
	Keys      []model.APIKey
	Endpoints []string
	Usage     []model.Usage
	Older     string
	Paged     bool
}

func (c *Console) creditsPage(w http.ResponseWriter, r *http.Request, rq *request) {
	ff, f, from, to, msg := logFilter(r, rq.now)
	d := &creditsData{Filter: ff, Endpoints: endpoints, Paged: r.URL.Query().Get("before") != ""}
	if err := c.Biller.Flush(r.Context()); err != nil {
		c.Log.Warn("console: flush usage records", "err", err)
	}
	var err error
	if d.Summary, err = c.Store.Credits(r.Context(), rq.ws.ID); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if d.Keys, err = c.Store.Keys(r.Context(), rq.ws.ID); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	chartFilter := f
	chartFilter.Before = to.AddDate(0, 0, 1)
	days, err := c.Store.CreditsPerDay(r.Context(), rq.ws.ID, chartFilter)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	d.Chart, d.Total = creditsChart(days, from, to)
	if d.Usage, err = c.Store.Usage(r.Context(), rq.ws.ID, f); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if len(d.Usage) > 0 {
		d.Older = olderURL(r, len(d.Usage), d.Usage[len(d.Usage)-1].CreatedAt)
	}
	p := rq.page("credits", "Credits and usage", d)
	p.Error = msg
	c.render(w, r, http.StatusOK, "credits", p)
}

type activityData struct {
	// Names are the monitors' labels (or URLs) by id, for targets.
	Names     map[string]string
	Filter    filterForm
	Keys      []model.APIKey
	Endpoints []string
	Activity  []model.Activity
	Older     string
	Paged     bool
}

func (c *Console) activityPage(w http.ResponseWriter, r *http.Request, rq *request) {
	ff, f, _, _, msg := logFilter(r, rq.now)
	d := &activityData{Filter: ff, Endpoints: endpoints, Paged: r.URL.Query().Get("before") != ""}
	if err := c.Biller.Flush(r.Context()); err != nil {
		c.Log.Warn("console: flush usage records", "err", err)
	}
	var err error
	if d.Keys, err = c.Store.Keys(r.Context(), rq.ws.ID); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if d.Activity, err = c.Store.Activity(r.Context(), rq.ws.ID, f); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	if rq.ws.Monitoring {
		ms, err := c.Store.Monitors(r.Context(), rq.ws.ID, time.Time{}, overviewMonitors)
		if err != nil {
			c.fail(w, r, rq, err)
			return
		}
		d.Names = make(map[string]string, len(ms))
		for _, m := range ms {
			d.Names[m.ID] = cmp.Or(m.Label, m.URL)
		}
	}
	if len(d.Activity) > 0 {
		d.Older = olderURL(r, len(d.Activity), d.Activity[len(d.Activity)-1].CreatedAt)
	}
	p := rq.page("activity", "Activity", d)
	p.Error = msg
	c.render(w, r, http.StatusOK, "activity", p)
}

type overviewData struct {
	Summary    *model.CreditSummary
	Chart      template.HTML
	Total      int64
	LiveKeys   int
	Monitors   int
	Changed    []change
	Activity   []model.Activity
	CreditsURL string
}

// change is a monitor that changed, with its latest changed run (nil when
// it is no longer among its last runs).
type change struct {
	M   *model.Monitor
	Run *model.Run
}

// overviewMonitors bounds the monitors the overview looks through for the
// latest changes.
const overviewMonitors = 100

func (c *Console) overview(w http.ResponseWriter, r *http.Request, rq *request) {
	d := &overviewData{}
	if err := c.Biller.Flush(r.Context()); err != nil {
		c.Log.Warn("console: flush usage records", "err", err)
	}
	var err error
	if d.Summary, err = c.Store.Credits(r.Context(), rq.ws.ID); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	to := rq.now.UTC().Truncate(24 * time.Hour)
	from := to.AddDate(0, 0, -(defaultDays - 1))
	days, err := c.Store.CreditsPerDay(r.Context(), rq.ws.ID, model.LogFilter{Since: from, Before: to.AddDate(0, 0, 1)})
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	d.Chart, d.Total = creditsChart(days, from, to)
	keys, err := c.Store.Keys(r.Context(), rq.ws.ID)
	if err != nil {
		c.fail(w, r, rq, err)
		return
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			d.LiveKeys++
		}
	}
	if rq.ws.Monitoring {
		ms, err := c.Store.Monitors(r.Context(), rq.ws.ID, time.Time{}, overviewMonitors)
		if err != nil {
			c.fail(w, r, rq, err)
			return
		}
		d.Monitors = len(ms)
		for _, m := range latestChanges(ms, 5) {
			ch := change{M: m}
			// The change itself: the latest changed run among the last few.
			runs, err := c.Store.Runs(r.Context(), m.ID, time.Time{}, 10)
			if err != nil {
				c.fail(w, r, rq, err)
				return
			}
			for _, run := range runs {
				if run.Outcome == model.OutcomeChanged {
					ch.Run = run
					break
				}
			}
			d.Changed = append(d.Changed, ch)
		}
	}
	if d.Activity, err = c.Store.Activity(r.Context(), rq.ws.ID, model.LogFilter{Limit: 8}); err != nil {
		c.fail(w, r, rq, err)
		return
	}
	d.CreditsURL = rq.base + "/credits?" + url.Values{"from": {from.Format(time.DateOnly)}}.Encode()
	c.render(w, r, http.StatusOK, "overview", rq.page("overview", rq.ws.Name, d))
}

// latestChanges is the n monitors that changed last, latest first.
func latestChanges(ms []*model.Monitor, n int) []*model.Monitor {
	var out []*model.Monitor
	for _, m := range ms {
		if m.LastChanged != nil {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *model.Monitor) int { return b.LastChanged.Compare(*a.LastChanged) })
	return out[:min(n, len(out))]
}

// chart geometry, in the SVG's own units.
const (
	chartW, chartH           = 720, 200
	chartLeft, chartRight    = 44, 8
	chartTop, chartBottom    = 12, 28
	chartPlotW, chartPlotH   = chartW - chartLeft - chartRight, chartH - chartTop - chartBottom
	chartMinBarGap, chartGap = 1.0, 0.2
)

// creditsChart draws the credits of each day from from to to (UTC days,
// both included) as bars, and returns it with the range's total.
func creditsChart(days []store.DailyCredits, from, to time.Time) (template.HTML, int64) {
	n := int(to.Sub(from).Hours()/24) + 1
	credits := make([]int64, n)
	calls := make([]int64, n)
	var total, peak int64
	for _, d := range days {
		i := int(d.Day.Sub(from).Hours() / 24)
		if i < 0 || i >= n {
			continue
		}
		credits[i], calls[i] = d.Credits, d.Calls
		total += d.Credits
		peak = max(peak, d.Credits)
	}
	top := niceCeil(peak)
	var b strings.Builder
	b.WriteString(`<svg class="chart" viewBox="0 0 ` + itoa(chartW) + ` ` + itoa(chartH) + `" role="img" aria-labelledby="chart-t chart-d">`)
	b.WriteString(`<title id="chart-t">Credits per day</title>`)
	b.WriteString(`<desc id="chart-d">` + itoa64(total) + ` credits from ` + from.Format("Jan 2") + ` to ` + to.Format("Jan 2, 2006") +
		`; the most in one day: ` + itoa64(peak) + `.</desc>`)
	lines := []int64{0, top / 2, top}
	if total == 0 {
		lines = lines[:1]
	}
	for _, v := range lines {
		y := chartTop + chartPlotH - float64(v)/float64(top)*chartPlotH
		b.WriteString(`<line class="grid" x1="` + itoa(chartLeft) + `" x2="` + itoa(chartW-chartRight) + `" y1="` + ftoa(y) + `" y2="` + ftoa(y) + `"/>`)
		b.WriteString(`<text class="tick" x="` + itoa(chartLeft-6) + `" y="` + ftoa(y+4) + `" text-anchor="end">` + itoa64(v) + `</text>`)
	}
	slot := float64(chartPlotW) / float64(n)
	gap := max(slot*chartGap, chartMinBarGap)
	for i, v := range credits {
		day := from.AddDate(0, 0, i)
		h := float64(v) / float64(top) * chartPlotH
		if v > 0 {
			h = max(h, 1.5)
		}
		x := chartLeft + float64(i)*slot + gap/2
		b.WriteString(`<g class="day"><rect class="hit" x="` + ftoa(chartLeft+float64(i)*slot) + `" y="` + itoa(chartTop) + `" width="` +
			ftoa(slot) + `" height="` + itoa(chartPlotH) + `"/>`)
		b.WriteString(`<rect class="bar" x="` + ftoa(x) + `" y="` + ftoa(chartTop+chartPlotH-h) + `" width="` + ftoa(max(slot-gap, 1)) +
			`" height="` + ftoa(h) + `"/>`)
		b.WriteString(`<title>` + day.Format("Mon Jan 2") + `: ` + itoa64(v) + ` credits, ` + itoa64(calls[i]) + ` calls</title></g>`)
	}
	if total == 0 {
		var calls64 int64
		for _, c := range calls {
			calls64 += c
		}
		msg := "No credits drawn in this range."
		if calls64 > 0 {
			msg = "No credits drawn in this range: " + itoa64(calls64) + " free calls."
		}
		b.WriteString(`<text class="empty" x="` + itoa(chartLeft+chartPlotW/2) + `" y="` + itoa(chartTop+chartPlotH/2) +
			`" text-anchor="middle">` + msg + `</text>`)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		if n < 3 && i != 0 {
			continue
		}
		x := chartLeft + (float64(i)+0.5)*slot
		anchor := "middle"
		switch i {
		case 0:
			anchor, x = "start", chartLeft
		case n - 1:
			anchor, x = "end", chartW-chartRight
		}
		b.WriteString(`<text class="tick" x="` + ftoa(x) + `" y="` + itoa(chartH-8) + `" text-anchor="` + anchor + `">` +
			from.AddDate(0, 0, i).Format("Jan 2") + `</text>`)
	}
	b.WriteString(`</svg>`)
	// Only numbers and dates are written above: nothing needs escaping.
	return template.HTML(b.String()), total
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (at least 2, so
// the half-way line is a whole number).
func niceCeil(v int64) int64 {
	if v <= 2 {
		return 2
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= v {
				return m * p
			}
		}
	}
}
