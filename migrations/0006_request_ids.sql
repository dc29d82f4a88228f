-- The x-request-id of the request behind each audit record and each webhook delivery (issue 18),
-- so a client's or a proxy's trace id finds what the request did.
--
-- A plain column, no index: D1 bills a row written for every B-tree a row enters, and an index
-- would make an audit record cost 4 rows written instead of 3 (0005). Finding one request's rows
-- is a range of the time order or of the key's or session's index, filtered by this column.
-- NULL on rows written before this migration; the Worker writes it from here on (and, deployed
-- ahead of this migration, writes rows without it: src/audit/audit-layout.ts).
ALTER TABLE audit_records ADD COLUMN request_id TEXT;
ALTER TABLE hook_deliveries ADD COLUMN request_id TEXT;
