package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// client calls the node's REST API with one key.
type client struct {
	base, key string
	clients   int
	http      *http.Client
}

func newClient(base, key string, clients int) *client {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, IdleConnTimeout: time.Minute}
	return &client{base: base, key: key, clients: clients, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// call sends one request and decodes the envelope's data into out.
func (c *client) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var env struct {
		OK    bool            `json:"ok"`
		Data  json.RawMessage `json:"data"`
		Error string          `json:"error"`
		Code  string          `json:"code"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&env); err != nil {
		return fmt.Errorf("%s %s: HTTP %d: %w", method, path, res.StatusCode, err)
	}
	if !env.OK {
		return fmt.Errorf("%s %s: HTTP %d %s: %s", method, path, res.StatusCode, env.Code, env.Error)
	}
	if out != nil {
		return json.Unmarshal(env.Data, out)
	}
	return nil
}

// parallel runs fn(i) for i in [0, n) on c.clients goroutines and returns
// the first error.
func (c *client) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range c.clients {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
loop:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break loop
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// register registers a monitor of every page of the site, checked daily,
// and returns their ids in page order.
func (c *client) register(ctx context.Context, s *site, n int, keywords []string) ([]string, error) {
	ids := make([]string, n)
	err := c.parallel(ctx, n, func(ctx context.Context, i int) error {
		body := map[string]any{"url": s.url(i), "check_interval_hours": 24, "label": fmt.Sprintf("bench %d", i)}
		if len(keywords) > 0 {
			body["discovery_keywords"] = keywords
		}
		var out struct {
			MonitorID string `json:"monitor_id"`
		}
		if err := c.call(ctx, "POST", "/api/v1/monitor/register", body, &out); err != nil {
			return err
		}
		ids[i] = out.MonitorID
		return nil
	})
	return ids, err
}

// checkAll asks for a check of every monitor now.
func (c *client) checkAll(ctx context.Context, ids []string) error {
	return c.parallel(ctx, len(ids), func(ctx context.Context, i int) error {
		return c.call(ctx, "POST", "/api/v1/monitor/"+ids[i]+"/check", nil, nil)
	})
}
