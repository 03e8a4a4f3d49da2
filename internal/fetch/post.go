package fetch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"webacq/internal/model"
)

// PostResult is a receiver's answer to a POST.
type PostResult struct {
	StatusCode int
	Header     http.Header
	Body       []byte // the first maxPostAnswer bytes
	Duration   time.Duration
}

// maxPostAnswer is how much of a receiver's answer is kept.
const maxPostAnswer = 1024

// Post sends body to rawURL through the SSRF guard (checked again at
// connect time), following no redirect: a webhook receiver answers for
// itself. timeout bounds the whole exchange.
func (c *Client) Post(ctx context.Context, rawURL string, header http.Header, body []byte, timeout time.Duration) (*PostResult, error) {
	u, err := c.CheckURL(rawURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	start := time.Now()
	resp, err := c.transport.RoundTrip(req) // no redirects: the transport does not follow them
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxPostAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return &PostResult{StatusCode: resp.StatusCode, Header: resp.Header, Body: answer, Duration: time.Since(start)}, nil
}
