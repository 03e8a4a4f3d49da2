-- +goose Up
-- Every page a workspace acquires, latest copy per URL and variant, so that
-- maxAge can answer from a fresh-enough copy and search has content.
CREATE TABLE pages (
    id           INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    url          TEXT NOT NULL,
    variant      TEXT NOT NULL,
    final_url    TEXT NOT NULL,
    status       INTEGER NOT NULL,
    tier         TEXT NOT NULL,
    title        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    markdown     TEXT NOT NULL,
    result       TEXT NOT NULL,
    fetched_at   TIMESTAMP NOT NULL,
    UNIQUE (workspace_id, url, variant)
);
CREATE INDEX pages_fetched_at ON pages (fetched_at);

-- +goose Down
DROP TABLE pages;
