-- Scopes a key holds beyond its role (issue 32): JSON array of KEY_SCOPES (src/auth/principal.ts).
-- `metrics` lets a key that is not an admin's read GET /metrics, so a Prometheus scraper needs no
-- admin key. Existing keys hold none.
ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '[]';
