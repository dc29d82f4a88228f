-- OAuth grants for /mcp (src/oauth/; docs/storage.md). A person's consent to an MCP client is a
-- principal like an API key: a row here with role agent and the toolsets picked on the consent
-- page, listed by GET /v1/keys and revoked by the same DELETE. The client holds OAuth tokens (in
-- OAUTH_KV), never a key: a grant's key_hash is "oauth-grant:<id>", which no SHA-256 hex digest
-- equals, so a grant can never be presented as a bearer key.
ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'key' CHECK (kind IN ('key', 'oauth_grant'));
-- The OAuth client_id the grant was given to (NULL for keys).
ALTER TABLE api_keys ADD COLUMN oauth_client_id TEXT;
