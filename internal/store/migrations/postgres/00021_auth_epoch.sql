-- +goose Up
-- The key cache's epoch on PostgreSQL (store/authlisten.go): every change
-- that can invalidate a cached principal bumps version and sends a NOTIFY;
-- each node's listener registers here and acknowledges the versions it has
-- applied, and changes wait for those acknowledgements.
CREATE TABLE auth_epoch (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO auth_epoch (id, version) VALUES (1, 0);
CREATE TABLE auth_listeners (
    id      TEXT PRIMARY KEY,
    pid     INTEGER NOT NULL,
    version BIGINT NOT NULL,
    seen_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE auth_listeners;
DROP TABLE auth_epoch;
