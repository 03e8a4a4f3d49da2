-- +goose Up
-- Full-text index over pages for the local search provider: a generated
-- tsvector (title weight A, markdown weight B) under a GIN index. The
-- 'simple' configuration lower-cases and neither stems nor drops stop words:
-- pages come in every language, and it matches what SQLite's unicode61
-- tokenizer does, so both engines find the same pages. Only the first
-- 200,000 characters of markdown are indexed, which keeps every tsvector far
-- below PostgreSQL's 1 MB limit (a PDF's text can be larger).
ALTER TABLE pages ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple'::regconfig, left(title, 2000)), 'A') ||
    setweight(to_tsvector('simple'::regconfig, left(markdown, 200000)), 'B')
) STORED;
CREATE INDEX pages_search ON pages USING GIN (search);

-- +goose Down
DROP INDEX pages_search;
ALTER TABLE pages DROP COLUMN search;
