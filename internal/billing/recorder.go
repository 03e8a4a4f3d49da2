package billing

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"webacq/internal/store"
)

// recorder is a group commit for the rows of calls that drew no credits:
// while one transaction is being written, arriving rows queue up and go in
// the next one together. Each caller waits until its rows are durable.
type recorder struct {
	store *store.Store
	log   *slog.Logger
	ch    chan pending
	wg    sync.WaitGroup

	mu     sync.RWMutex
	closed bool
}

type pending struct {
	rec  store.Record
	done chan error
}

const maxBatch = 512

func newRecorder(s *store.Store, log *slog.Logger) *recorder {
	r := &recorder{store: s, log: log, ch: make(chan pending, 4*maxBatch)}
	r.wg.Add(1)
	go r.loop()
	return r
}

var errClosed = errors.New("billing: recorder closed")

func (r *recorder) write(ctx context.Context, rec store.Record) error {
	p := pending{rec: rec, done: make(chan error, 1)}
	r.mu.RLock()
	if r.closed {
		r.mu.RUnlock()
		return errClosed
	}
	r.ch <- p
	r.mu.RUnlock()
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *recorder) loop() {
	defer r.wg.Done()
	batch := make([]pending, 0, maxBatch)
	recs := make([]store.Record, 0, maxBatch)
	for p := range r.ch {
		batch = append(batch[:0], p)
	drain:
		for len(batch) < maxBatch {
			select {
			case p, ok := <-r.ch:
				if !ok {
					break drain
				}
				batch = append(batch, p)
			default:
				break drain
			}
		}
		recs = recs[:0]
		for _, p := range batch {
			recs = append(recs, p.rec)
		}
		err := r.store.WriteRecords(context.Background(), recs)
		if err != nil {
			r.log.Error("write usage records", "err", err, "count", len(recs))
		}
		for _, p := range batch {
			p.done <- err
		}
	}
}

// close stops accepting rows, writes those queued and returns.
func (r *recorder) close() {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.ch)
	}
	r.mu.Unlock()
	r.wg.Wait()
}
