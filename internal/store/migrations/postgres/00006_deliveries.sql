-- +goose Up
-- The outbox of monitor alerts: a delivery is written with the run that
-- causes it, in the same transaction as the job that sends it.
CREATE TABLE deliveries (
    id           TEXT PRIMARY KEY,
    monitor_id   TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    run_id       TEXT NOT NULL,
    kind         TEXT NOT NULL,
    status       TEXT NOT NULL,
    payload      TEXT NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_status  INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX deliveries_monitor_created ON deliveries (monitor_id, created_at);

CREATE TABLE delivery_attempts (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id  TEXT NOT NULL,
    attempt      INTEGER NOT NULL,
    status_code  INTEGER NOT NULL,
    latency_ms   INTEGER NOT NULL,
    error_class  TEXT NOT NULL,
    response     TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);

-- +goose Down
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
