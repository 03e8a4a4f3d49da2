-- +goose Up
-- Alert channels besides the webhook (DECISIONS.md, Alert channels): the
-- workspace defaults. The Slack URL is a credential and is sealed like the
-- webhook secret; the recipients are JSON arrays.
ALTER TABLE workspaces ADD COLUMN alert_slack_url TEXT;
ALTER TABLE workspaces ADD COLUMN alert_email_to TEXT;
ALTER TABLE workspaces ADD COLUMN alert_sms_to TEXT;

-- The extraction approval loop (spec 3.3): refinements gathered by
-- previews (JSON array), the latest preview (JSON), and the locked template.
ALTER TABLE monitors ADD COLUMN extract_refinements TEXT NOT NULL DEFAULT '[]';
ALTER TABLE monitors ADD COLUMN extract_preview TEXT;
ALTER TABLE monitors ADD COLUMN extracted_sample TEXT;
ALTER TABLE monitors ADD COLUMN locked_prompt TEXT;
ALTER TABLE monitors ADD COLUMN extract_approved_at TIMESTAMPTZ;

-- Where a Slack, email or SMS delivery goes, fixed when the alert is
-- written (a sealed Slack URL, an address, a phone number); '' for the
-- webhook, which goes to the workspace's current webhook.
ALTER TABLE deliveries ADD COLUMN target TEXT NOT NULL DEFAULT '';
CREATE INDEX deliveries_run ON deliveries (run_id);

-- +goose Down
DROP INDEX deliveries_run;
ALTER TABLE deliveries DROP COLUMN target;
ALTER TABLE monitors DROP COLUMN extract_approved_at;
ALTER TABLE monitors DROP COLUMN locked_prompt;
ALTER TABLE monitors DROP COLUMN extracted_sample;
ALTER TABLE monitors DROP COLUMN extract_preview;
ALTER TABLE monitors DROP COLUMN extract_refinements;
ALTER TABLE workspaces DROP COLUMN alert_sms_to;
ALTER TABLE workspaces DROP COLUMN alert_email_to;
ALTER TABLE workspaces DROP COLUMN alert_slack_url;
