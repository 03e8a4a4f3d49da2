-- +goose Up
-- The page store keeps the better copy of a page (SavePage): quality ranks
-- the copies of one URL and variant, and a copy replaces the stored one only
-- when it is at least as good. page_key is the page's identity for search:
-- its final URL in canonical form, so that a redirect and its target, or
-- the loopback names of one address, are one hit. Rows stored before this
-- migration have quality 0, which any new copy replaces, and no key, for
-- which search reads the final URL (see pageKeyExpr); no backfill, which on
-- PostgreSQL would rewrite every row and its tsvector.
ALTER TABLE pages ADD COLUMN quality INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN page_key TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE pages DROP COLUMN page_key;
ALTER TABLE pages DROP COLUMN quality;
