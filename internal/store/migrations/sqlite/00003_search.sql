-- +goose Up
-- Full-text index over pages for the local search provider. An
-- external-content FTS5 table: it stores only the index and reads title and
-- markdown back from pages (rowid = pages.id) for snippets. Triggers keep it
-- in step with every insert, update (SavePage's upsert) and delete (pruning,
-- workspace deletion). Workspace isolation is a join on pages, not part of
-- the index. The unicode61 tokenizer folds case and diacritics and does not
-- stem, like the 'simple' configuration on PostgreSQL.
CREATE VIRTUAL TABLE pages_fts USING fts5(
    title, markdown,
    content = 'pages', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

-- +goose StatementBegin
CREATE TRIGGER pages_fts_insert AFTER INSERT ON pages BEGIN
    INSERT INTO pages_fts (rowid, title, markdown) VALUES (new.id, new.title, new.markdown);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER pages_fts_delete AFTER DELETE ON pages BEGIN
    INSERT INTO pages_fts (pages_fts, rowid, title, markdown) VALUES ('delete', old.id, old.title, old.markdown);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER pages_fts_update AFTER UPDATE OF title, markdown ON pages BEGIN
    INSERT INTO pages_fts (pages_fts, rowid, title, markdown) VALUES ('delete', old.id, old.title, old.markdown);
    INSERT INTO pages_fts (rowid, title, markdown) VALUES (new.id, new.title, new.markdown);
END;
-- +goose StatementEnd

-- Pages stored before this migration.
INSERT INTO pages_fts (pages_fts) VALUES ('rebuild');

-- +goose Down
DROP TRIGGER pages_fts_update;
DROP TRIGGER pages_fts_delete;
DROP TRIGGER pages_fts_insert;
DROP TABLE pages_fts;
