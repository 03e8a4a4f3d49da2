-- +goose Up
CREATE TABLE workspaces (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    credits        INTEGER NOT NULL DEFAULT 0 CHECK (credits >= 0),
    monitoring     INTEGER NOT NULL DEFAULT 0,
    webhook_url    TEXT,
    webhook_secret TEXT,
    created_at     TIMESTAMP NOT NULL
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    hash         TEXT NOT NULL UNIQUE,
    prefix       TEXT NOT NULL,
    name         TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    revoked_at   TIMESTAMP
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
CREATE INDEX api_keys_prefix ON api_keys (prefix);

-- Credits held by calls in flight. A row lives from reserve to settle; rows
-- whose holder died are refunded once they expire.
CREATE TABLE reservations (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    credits      INTEGER NOT NULL CHECK (credits >= 0),
    created_at   TIMESTAMP NOT NULL,
    expires_at   TIMESTAMP NOT NULL
);
CREATE INDEX reservations_expires ON reservations (expires_at);

CREATE TABLE usage_log (
    id           INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    key_prefix   TEXT NOT NULL,
    endpoint     TEXT NOT NULL,
    credits      INTEGER NOT NULL,
    tier         TEXT NOT NULL,
    status       INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL,
    request_id   TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX usage_log_workspace_created ON usage_log (workspace_id, created_at);

CREATE TABLE activity_log (
    id           INTEGER PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    key_prefix   TEXT NOT NULL,
    endpoint     TEXT NOT NULL,
    via          TEXT NOT NULL,
    method       TEXT NOT NULL,
    target       TEXT NOT NULL,
    status       INTEGER NOT NULL,
    error_code   TEXT NOT NULL,
    credits      INTEGER NOT NULL,
    request_id   TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX activity_log_workspace_created ON activity_log (workspace_id, created_at);

-- +goose Down
DROP TABLE activity_log;
DROP TABLE usage_log;
DROP TABLE reservations;
DROP TABLE api_keys;
DROP TABLE workspaces;
