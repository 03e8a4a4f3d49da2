-- +goose Up
-- Crawls and extracts running now, per workspace, shared by every node
-- (DECISIONS, Rate limits: concurrent crawls/extracts). A row is a lease:
-- the node that runs the call renews expires_at (unix seconds) while it
-- runs and deletes the row when it ends, so a node that dies frees its
-- slots when their leases run out.
CREATE TABLE running_calls (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    endpoint     TEXT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX running_calls_workspace ON running_calls (workspace_id, expires_at);

-- +goose Down
DROP TABLE running_calls;
