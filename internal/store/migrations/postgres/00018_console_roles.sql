-- +goose Up
-- A console account's role in a workspace: an owner manages its keys,
-- alerts and accounts; a member reads it and runs its monitors. Grants
-- made before roles existed gave every power, so they stay owners.
ALTER TABLE console_grants ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';

-- +goose Down
ALTER TABLE console_grants DROP COLUMN role;
