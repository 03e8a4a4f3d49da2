// Package metrics is the service's Prometheus metrics, served in the text
// format on their own listen address (WEBACQ_METRICS_ADDR). Every label is
// bounded: a route pattern, a method, a status code, a tier, a verdict, an
// outcome, a delivery kind and result, a job queue and state. No URL, key,
// workspace, monitor or job id ever becomes a label, so a node's series stay
// a fixed few hundred whatever its users do (TestLabelsAreBounded).
package metrics

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// registry holds this process's metrics; the default registry of the
// client library is left alone.
var registry = prometheus.NewRegistry()

var (
	requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webacq_http_requests_total",
		Help: "HTTP requests answered, by route pattern, method and status code.",
	}, []string{"route", "method", "status"})
	latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "webacq_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
	}, []string{"route"})
	credits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webacq_credits_drawn_total",
		Help: "Credits drawn from workspaces, by endpoint (route pattern, or monitor_check / monitor_extract).",
	}, []string{"endpoint"})
	fetches = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webacq_fetches_total",
		Help: "Pages acquired, by the tier that answered and the verdict on the page.",
	}, []string{"tier", "verdict"})
	conversions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webacq_memory_budget_total",
		Help: "Reservations of the node's memory budget, by result: granted at once, granted after waiting, refused.",
	}, []string{"result"})
	monitorRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webacq_monitor_runs_total",
		Help: "Monitor runs recorded, by outcome.",
	}, []string{"outcome"})
	lateness = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "webacq_monitor_check_lateness_seconds",
		Help:    "Time from a check's due time to its start.",
		Buckets: []float64{.1, .5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600},
	})
	deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "webacq_alert_delivery_attempts_total",
		Help: "Alert delivery attempts, by kind (webhook, slack, email, sms) and the delivery's state after it.",
	}, []string{"kind", "result"})
)

func init() {
	registry.MustRegister(requests, latency, credits, fetches, conversions, monitorRuns, lateness, deliveries,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// Handler serves the metrics in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Register adds a collector (the job queue's, which reads the database at
// each scrape); it panics on a name taken twice, a programming error.
func Register(c prometheus.Collector) { registry.MustRegister(c) }

// methods are the methods counted by name; any other is OTHER.
var methods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true}

// Request counts an answered request. route must be a registered pattern
// or a fixed name ("other" for anything unrouted), never a raw path.
func Request(route, method string, status int, took time.Duration) {
	if !methods[method] {
		method = "OTHER"
	}
	if status < 100 || status > 599 {
		status = 0
	}
	requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	latency.WithLabelValues(route).Observe(took.Seconds())
}

// CreditsDrawn counts credits drawn for endpoint (a route pattern or a
// fixed name).
func CreditsDrawn(endpoint string, n int64) {
	if n > 0 {
		credits.WithLabelValues(endpoint).Add(float64(n))
	}
}

// Fetch counts a page acquired by tier with verdict.
func Fetch(tier, verdict string) { fetches.WithLabelValues(tier, verdict).Inc() }

// Budget counts a reservation of the memory budget: "granted", "waited"
// or "refused".
func Budget(result string) { conversions.WithLabelValues(result).Inc() }

// MonitorRun counts a recorded run by outcome.
func MonitorRun(outcome string) { monitorRuns.WithLabelValues(outcome).Inc() }

// CheckLate records how long after its due time a check started.
func CheckLate(d time.Duration) { lateness.Observe(max(d, 0).Seconds()) }

// DeliveryAttempt counts an attempt to deliver an alert of kind, by the
// delivery's state after it.
func DeliveryAttempt(kind, result string) { deliveries.WithLabelValues(kind, result).Inc() }

// Text is the metrics as a scrape would read them, for tests.
func Text() (string, error) {
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		return "", fmt.Errorf("metrics: scrape answered %d", rec.Code)
	}
	return rec.Body.String(), nil
}
