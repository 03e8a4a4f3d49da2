-- +goose Up
-- Discovery channels besides the page (edgar_8k, businesswire,
-- globenewswire) keep their own state (JSON by channel: the filings or
-- releases already seen, the validators of the last answer), and a check
-- records one run per channel.
ALTER TABLE monitors ADD COLUMN channel_state TEXT;
ALTER TABLE monitor_runs DROP CONSTRAINT monitor_runs_monitor_id_due_at_key;
ALTER TABLE monitor_runs ADD CONSTRAINT monitor_runs_monitor_due_channel UNIQUE (monitor_id, due_at, channel);

-- +goose Down
ALTER TABLE monitor_runs DROP CONSTRAINT monitor_runs_monitor_due_channel;
DELETE FROM monitor_runs WHERE channel NOT IN ('ir_page', 'direct_pdf');
ALTER TABLE monitor_runs ADD CONSTRAINT monitor_runs_monitor_id_due_at_key UNIQUE (monitor_id, due_at);
ALTER TABLE monitors DROP COLUMN channel_state;
