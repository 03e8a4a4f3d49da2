-- +goose Up
-- A watched URL: its registration, its state between runs (the anchor, the
-- last snapshot, the validators of a conditional GET) and its schedule.
CREATE TABLE monitors (
    id                   TEXT PRIMARY KEY,
    workspace_id         TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    url                  TEXT NOT NULL,
    host                 TEXT NOT NULL,
    label                TEXT NOT NULL DEFAULT '',
    channels             TEXT NOT NULL,
    check_interval_hours INTEGER NOT NULL,
    discovery_keywords   TEXT NOT NULL,
    extract_intent       TEXT NOT NULL DEFAULT '',
    accept_selectors     TEXT NOT NULL,
    company              TEXT,
    alerts               TEXT,
    status               TEXT NOT NULL,
    consecutive_errors   INTEGER NOT NULL DEFAULT 0,
    anchor               TEXT,
    snapshot             TEXT,
    etag                 TEXT NOT NULL DEFAULT '',
    last_modified        TEXT NOT NULL DEFAULT '',
    body_hash            TEXT NOT NULL DEFAULT '',
    reanchor             INTEGER NOT NULL DEFAULT 0,
    last_checked         TIMESTAMP,
    last_changed         TIMESTAMP,
    last_outcome         TEXT NOT NULL DEFAULT '',
    top_score            REAL NOT NULL DEFAULT 0,
    next_check_at        TIMESTAMP NOT NULL,
    job_id               INTEGER,
    created_at           TIMESTAMP NOT NULL,
    updated_at           TIMESTAMP NOT NULL,
    UNIQUE (workspace_id, url)
);
CREATE INDEX monitors_workspace_created ON monitors (workspace_id, created_at);
CREATE INDEX monitors_next_check ON monitors (next_check_at);

-- One row per check of a monitor and due time: a retried job finds its run
-- already written and neither runs nor bills twice.
CREATE TABLE monitor_runs (
    id               TEXT PRIMARY KEY,
    monitor_id       TEXT NOT NULL REFERENCES monitors(id) ON DELETE CASCADE,
    workspace_id     TEXT NOT NULL,
    due_at           TIMESTAMP NOT NULL,
    started_at       TIMESTAMP NOT NULL,
    finished_at      TIMESTAMP NOT NULL,
    outcome          TEXT NOT NULL,
    suppressed       INTEGER NOT NULL DEFAULT 0,
    top_score        REAL NOT NULL DEFAULT 0,
    channel          TEXT NOT NULL,
    status_code      INTEGER NOT NULL DEFAULT 0,
    tier             TEXT NOT NULL,
    content_hash     TEXT NOT NULL DEFAULT '',
    size_bytes       INTEGER NOT NULL DEFAULT 0,
    change_signal    TEXT NOT NULL DEFAULT '[]',
    pdf_links        TEXT NOT NULL DEFAULT '[]',
    extracted_fields TEXT,
    error            TEXT NOT NULL DEFAULT '',
    credits          INTEGER NOT NULL DEFAULT 0,
    content_preview  TEXT NOT NULL DEFAULT '',
    snapshot         TEXT,
    diff             TEXT,
    UNIQUE (monitor_id, due_at)
);
CREATE INDEX monitor_runs_monitor_started ON monitor_runs (monitor_id, started_at);
CREATE INDEX monitor_runs_started ON monitor_runs (started_at);

-- +goose Down
DROP TABLE monitor_runs;
DROP TABLE monitors;
