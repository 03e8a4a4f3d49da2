-- +goose Up
-- Discovery channels besides the page (edgar_8k, businesswire,
-- globenewswire) keep their own state (JSON by channel: the filings or
-- releases already seen, the validators of the last answer), and a check
-- records one run per channel: SQLite cannot change a constraint, so the
-- runs table is rebuilt with the new one.
ALTER TABLE monitors ADD COLUMN channel_state TEXT;
CREATE TABLE monitor_runs_new (
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
    UNIQUE (monitor_id, due_at, channel)
);
INSERT INTO monitor_runs_new (id, monitor_id, workspace_id, due_at, started_at, finished_at, outcome, suppressed, top_score, channel, status_code, tier, content_hash, size_bytes, change_signal, pdf_links, extracted_fields, error, credits, content_preview, snapshot, diff)
    SELECT id, monitor_id, workspace_id, due_at, started_at, finished_at, outcome, suppressed, top_score, channel, status_code, tier, content_hash, size_bytes, change_signal, pdf_links, extracted_fields, error, credits, content_preview, snapshot, diff FROM monitor_runs;
DROP TABLE monitor_runs;
ALTER TABLE monitor_runs_new RENAME TO monitor_runs;
CREATE INDEX monitor_runs_monitor_started ON monitor_runs (monitor_id, started_at);
CREATE INDEX monitor_runs_started ON monitor_runs (started_at);

-- +goose Down
CREATE TABLE monitor_runs_old (
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
INSERT INTO monitor_runs_old (id, monitor_id, workspace_id, due_at, started_at, finished_at, outcome, suppressed, top_score, channel, status_code, tier, content_hash, size_bytes, change_signal, pdf_links, extracted_fields, error, credits, content_preview, snapshot, diff)
    SELECT id, monitor_id, workspace_id, due_at, started_at, finished_at, outcome, suppressed, top_score, channel, status_code, tier, content_hash, size_bytes, change_signal, pdf_links, extracted_fields, error, credits, content_preview, snapshot, diff FROM monitor_runs WHERE channel IN ('ir_page', 'direct_pdf');
DROP TABLE monitor_runs;
ALTER TABLE monitor_runs_old RENAME TO monitor_runs;
CREATE INDEX monitor_runs_monitor_started ON monitor_runs (monitor_id, started_at);
CREATE INDEX monitor_runs_started ON monitor_runs (started_at);
ALTER TABLE monitors DROP COLUMN channel_state;
