-- +goose Up
-- Per-workspace request limits shared by every node (DECISIONS, Rate
-- limits): requests per minute of each class (primitives, monitor API)
-- and crawls/extracts at once. request_windows counts a class's requests
-- in its current minute (window_start, unix seconds).
ALTER TABLE workspaces ADD COLUMN rate_rpm INTEGER NOT NULL DEFAULT 600;
ALTER TABLE workspaces ADD COLUMN rate_concurrent INTEGER NOT NULL DEFAULT 10;
CREATE TABLE request_windows (
    workspace_id TEXT NOT NULL,
    class        TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    count        INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, class)
);

-- +goose Down
DROP TABLE request_windows;
ALTER TABLE workspaces DROP COLUMN rate_concurrent;
ALTER TABLE workspaces DROP COLUMN rate_rpm;
