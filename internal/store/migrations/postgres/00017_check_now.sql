-- +goose Up
-- The time of a monitor's last check-now (POST /api/v1/monitor/:id/check):
-- the per-monitor limit (WEBACQ_CHECK_NOW_INTERVAL) reads it, and the run
-- due at that time is the one the owner asked for.
ALTER TABLE monitors ADD COLUMN check_now_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE monitors DROP COLUMN check_now_at;
