package fetch

import (
	"context"
	"io"
	"net/http"

	"webacq/internal/model"
)

// Size asks how large the document at rawURL is without downloading it: a
// HEAD through the same guard, redirects and timeouts as Get. It answers -1
// when the server declares no length.
func (c *Client) Size(ctx context.Context, rawURL string) (int64, error) {
	u, err := c.CheckURL(rawURL)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, u.String(), nil)
	if err != nil {
		return 0, model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	if err := c.setHeaders(req, Request{}); err != nil {
		return 0, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, classify(ctx, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode >= 400 {
		return 0, model.Errorf(model.CodeUpstreamError, "the site answered HTTP %d", resp.StatusCode)
	}
	return resp.ContentLength, nil
}
