-- +goose Up
-- The sweep of deliveries left pending without a job (alert.RequeueOrphans)
-- reads the pending ones every minute; they are few among all.
CREATE INDEX deliveries_pending ON deliveries (updated_at) WHERE status = 'pending';

-- +goose Down
DROP INDEX deliveries_pending;
