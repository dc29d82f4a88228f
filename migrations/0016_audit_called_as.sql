-- The alias a call was made by at a curated endpoint (issue 29): `/mcp/{toolset}` of a custom
-- toolset with aliases presents `mcp__github__create_issue` as `create_issue`. The record's `tool`
-- stays the real name (policy decided on it); this column keeps the name the client used.
--
-- A plain column, no index, as request_id (0006): an index would cost a row written per record.
-- NULL for calls made by a tool's own name and for rows written before this migration.
ALTER TABLE audit_records ADD COLUMN called_as TEXT;
