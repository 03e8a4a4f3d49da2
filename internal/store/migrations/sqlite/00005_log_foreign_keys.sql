-- +goose Up
-- PostgreSQL drops the foreign keys of the log and page tables here (see its
-- 00005); SQLite has one writer and no shared row locks, so they stay.
SELECT 1;

-- +goose Down
SELECT 1;
