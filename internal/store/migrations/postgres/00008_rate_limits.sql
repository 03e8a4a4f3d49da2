-- +goose Up
-- Rate limits shared by every node (SEC fair access: at most 10 requests
-- per second to EDGAR): next_at is when the next request of the limit may
-- go, in unix microseconds.
CREATE TABLE rate_limits (
    name    TEXT PRIMARY KEY,
    next_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE rate_limits;
