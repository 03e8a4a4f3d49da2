package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Page is a stored copy of an acquired page.
type Page struct {
	WorkspaceID string
	URL         string
	// Variant names the options the copy was made with; only a request with
	// the same variant may be answered from it.
	Variant     string
	FinalURL    string
	Status      int
	Tier        string
	Title       string
	ContentHash string
	Markdown    string
	Result      []byte // the primitive's JSON payload
	FetchedAt   time.Time
	// Quality ranks the copies of one URL and variant, higher is better;
	// the caller defines the order (the fetch primitive: a rendered usable
	// page above a fetched one, above thin, empty and error pages).
	Quality int
	// Key is the page's identity in search: copies with one key are one
	// hit. The fetch primitive sets the canonical form of the final URL;
	// empty means FinalURL, or URL when that is empty too.
	Key string
}

// SavePage keeps a copy of a page per workspace, URL and variant: the new
// copy replaces the stored one unless that one is of higher quality, so a
// worse fetch (a JavaScript shell, a thin page, an error) never takes the
// place of a better copy; among copies of equal quality the latest wins.
func (s *Store) SavePage(ctx context.Context, p *Page) error {
	key := p.Key
	if key == "" {
		key = p.FinalURL
	}
	if key == "" {
		key = p.URL
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO pages
		(workspace_id, url, variant, final_url, status, tier, title, content_hash, markdown, result, fetched_at,
			quality, page_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (workspace_id, url, variant) DO UPDATE SET
		final_url = excluded.final_url, status = excluded.status, tier = excluded.tier, title = excluded.title,
		content_hash = excluded.content_hash, markdown = excluded.markdown, result = excluded.result,
		fetched_at = excluded.fetched_at, quality = excluded.quality, page_key = excluded.page_key
		WHERE excluded.quality >= pages.quality`,
		p.WorkspaceID, p.URL, p.Variant, p.FinalURL, p.Status, p.Tier, p.Title, p.ContentHash, p.Markdown,
		string(p.Result), p.FetchedAt.UTC(), p.Quality, key)
	if err != nil {
		return fmt.Errorf("store: save page: %w", err)
	}
	return nil
}

// FreshPage returns the workspace's copy of url in variant fetched at or
// after since, or nil when there is none.
func (s *Store) FreshPage(ctx context.Context, workspaceID, url, variant string, since time.Time) (*Page, error) {
	p := Page{WorkspaceID: workspaceID, URL: url, Variant: variant}
	var result string
	err := s.rdb.QueryRowContext(ctx, `SELECT final_url, status, tier, title, content_hash, markdown, result, fetched_at
		FROM pages WHERE workspace_id = $1 AND url = $2 AND variant = $3 AND fetched_at >= $4`,
		workspaceID, url, variant, since.UTC()).
		Scan(&p.FinalURL, &p.Status, &p.Tier, &p.Title, &p.ContentHash, &p.Markdown, &result, &p.FetchedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: fresh page: %w", err)
	}
	p.Result = []byte(result)
	return &p, nil
}

// PrunePages deletes copies fetched before cutoff and returns how many.
func (s *Store) PrunePages(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM pages WHERE fetched_at < $1`, cutoff.UTC())
	if err != nil {
		return 0, fmt.Errorf("store: prune pages: %w", err)
	}
	return res.RowsAffected()
}

// HasPages says whether the workspace has any page stored (and so in its
// search index).
func (s *Store) HasPages(ctx context.Context, workspaceID string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM pages WHERE workspace_id = $1 LIMIT 1) p`, workspaceID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: has pages: %w", err)
	}
	return n > 0, nil
}
