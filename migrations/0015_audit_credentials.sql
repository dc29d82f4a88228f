-- Which credential each audited call carried upstream (issue 30): `shared` (the deployment's),
-- `own` (the caller's per-user connection), `exchanged` (RFC 8693) or `identity` (a signed identity
-- JWT alone); NULL for calls that carried none, and on rows written before this migration.
--
-- The kind, never the token. A plain column at the end, no index, for the reason request_id has
-- none (0006): an index would make each record cost a fourth row written. The CHECK keeps a bad
-- value out of the log; the Worker, deployed ahead of this migration, writes rows without it
-- (src/audit/audit-layout.ts).
ALTER TABLE audit_records ADD COLUMN credential TEXT CHECK (credential IN ('shared', 'own', 'exchanged', 'identity'));
