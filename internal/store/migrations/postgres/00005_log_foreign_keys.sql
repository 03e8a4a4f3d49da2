-- +goose Up
-- Every insert into a table with a foreign key to workspaces takes a share
-- lock on the workspace's row; with many writers at once (monitor checks of
-- one workspace) those shared locks become multixacts, and the credit
-- update of the same row then waits on them: PostgreSQL spent 20 ms of CPU
-- per check there. Log and page rows name their workspace without the
-- constraint; workspaces are never deleted by the service.
ALTER TABLE usage_log DROP CONSTRAINT IF EXISTS usage_log_workspace_id_fkey;
ALTER TABLE activity_log DROP CONSTRAINT IF EXISTS activity_log_workspace_id_fkey;
ALTER TABLE pages DROP CONSTRAINT IF EXISTS pages_workspace_id_fkey;

-- +goose Down
ALTER TABLE usage_log ADD CONSTRAINT usage_log_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE;
ALTER TABLE activity_log ADD CONSTRAINT activity_log_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE;
ALTER TABLE pages ADD CONSTRAINT pages_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE;
