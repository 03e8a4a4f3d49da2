package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// JobCount is how many jobs of one kind are in one queue and state, and,
// for available jobs, how long the oldest has waited past its time.
type JobCount struct {
	Kind, Queue, State string
	Count              int64
	OldestWait         time.Duration
}

// Jobs reports the job queue's depth at each scrape by reading it from the
// database, so every node of a deployment reports the same queue.
type Jobs struct {
	read    func(ctx context.Context) ([]JobCount, error)
	count   *prometheus.Desc
	latency *prometheus.Desc
	failed  *prometheus.Desc
}

// NewJobs makes the collector over read (store.Store.JobCounts).
func NewJobs(read func(ctx context.Context) ([]JobCount, error)) *Jobs {
	return &Jobs{
		read: read,
		count: prometheus.NewDesc("webacq_jobs", "Jobs in the queue, by kind, queue and state.",
			[]string{"kind", "queue", "state"}, nil),
		latency: prometheus.NewDesc("webacq_jobs_oldest_available_seconds",
			"How long the oldest available job of a kind and queue has waited past its scheduled time.",
			[]string{"kind", "queue"}, nil),
		failed: prometheus.NewDesc("webacq_jobs_scrape_errors", "1 when the job queue could not be read at this scrape.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (j *Jobs) Describe(ch chan<- *prometheus.Desc) {
	ch <- j.count
	ch <- j.latency
	ch <- j.failed
}

// Collect implements prometheus.Collector: one bounded read, five seconds
// at most.
func (j *Jobs) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := j.read(ctx)
	failed := 0.0
	if err != nil {
		failed = 1
	}
	ch <- prometheus.MustNewConstMetric(j.failed, prometheus.GaugeValue, failed)
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetric(j.count, prometheus.GaugeValue, float64(r.Count), r.Kind, r.Queue, r.State)
		if r.State == "available" {
			ch <- prometheus.MustNewConstMetric(j.latency, prometheus.GaugeValue, r.OldestWait.Seconds(), r.Kind, r.Queue)
		}
	}
}
