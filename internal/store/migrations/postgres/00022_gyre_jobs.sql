-- +goose Up
-- Asynchronous crawls (DECISIONS, Async gyre). A job holds its credits in
-- held from the moment it is queued (drawn from the workspace in the same
-- transaction); when it ends (completed, cancelled, failed) the hold is
-- settled once: the pages saved are drawn, the rest refunded, and status
-- leaves queued/running for good.
CREATE TABLE gyre_jobs (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    key_prefix   TEXT NOT NULL,
    status       TEXT NOT NULL,
    request      TEXT NOT NULL,
    held         BIGINT NOT NULL,
    credits_used BIGINT NOT NULL DEFAULT 0,
    errors       TEXT NOT NULL DEFAULT '[]',
    request_id   TEXT NOT NULL DEFAULT '',
    via          TEXT NOT NULL DEFAULT '',
    river_job_id BIGINT NOT NULL DEFAULT 0,
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL,
    finished_at  TIMESTAMPTZ
);
CREATE INDEX gyre_jobs_finished ON gyre_jobs (finished_at);

-- The pages of a job as it crawls them, in the order it took them. They
-- are its results and its frontier: a job resumed on another worker
-- starts from these pages (their keys are seen, their links followed) and
-- bills each once (url_key is unique per job).
CREATE TABLE gyre_job_pages (
    job_id  TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    url_key TEXT NOT NULL,
    credits BIGINT NOT NULL,
    depth   INTEGER NOT NULL,
    page    TEXT NOT NULL,
    keys    TEXT NOT NULL,
    links   TEXT NOT NULL,
    PRIMARY KEY (job_id, seq)
);
CREATE UNIQUE INDEX gyre_job_pages_key ON gyre_job_pages (job_id, url_key);

-- +goose Down
DROP TABLE gyre_job_pages;
DROP TABLE gyre_jobs;
