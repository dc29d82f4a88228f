-- API keys (src/auth/key-store.ts; docs/storage.md). Only the SHA-256 digest of a key is kept;
-- the key itself is shown once, in the response that created it. Revoked keys keep their row
-- (revoked_at set) so the audit log's key ids still name something.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('agent', 'approver', 'admin')),
  -- 64 lowercase hex characters: SHA-256 of the whole key.
  key_hash TEXT NOT NULL,
  -- The key's first characters ("tg_" + 6), shown in listings so a person can tell keys apart.
  key_prefix TEXT NOT NULL,
  -- JSON array of toolset names; NULL means every toolset.
  toolsets TEXT,
  policy_mode TEXT NOT NULL CHECK (policy_mode IN ('whitelist', 'deny')),
  -- JSON array of tool names and globs.
  policy_patterns TEXT NOT NULL,
  -- Calls per minute; NULL means the gateway default.
  rate_limit_per_minute INTEGER CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute > 0),
  created_at TEXT NOT NULL,
  -- keyId of the admin that created it ("admin-token" for the bootstrap token).
  created_by TEXT NOT NULL,
  revoked_at TEXT
);

-- Authentication looks keys up by digest, on every isolate cache miss.
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);
