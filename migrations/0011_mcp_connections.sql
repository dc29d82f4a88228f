-- Per-user connections to remote MCP servers (issue 30; src/mcp/federation/connections/,
-- docs/storage.md): one row per principal (API key or OAuth grant id) and server whose
-- `auth_mode` is `per_user`, holding that principal's own OAuth grant sealed with AES-256-GCM
-- under MCP_TOKEN_KEY, the principal and server as additional data. D1, not KV: revoking a key
-- deletes its rows at once (KV is eventually consistent for up to a minute), and the list pages
-- by (principal, server) with a strongly consistent cursor.
CREATE TABLE mcp_connections (
  principal TEXT NOT NULL,
  server TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('connected', 'needs_reconnect')),
  reason TEXT,                -- why it needs reconnecting (the refusal), never a token
  grant_sealed TEXT NOT NULL, -- JSON {v, iv, data}: the OAuthGrant sealed (src/crypto/aes-gcm.ts)
  connected_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (principal, server)
);
-- Removing a server removes everyone's connections to it; the admin list pages by server too.
CREATE INDEX mcp_connections_server ON mcp_connections (server, principal);
