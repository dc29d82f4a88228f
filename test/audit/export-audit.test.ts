import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type AuditArchiveBucket, archiveAudit } from "../../src/audit/archive-audit.ts";
import { type AuditRecord, auditRecordId } from "../../src/audit/audit-record.ts";
import type { AuditRecordWire } from "../../src/audit/audit-wire.ts";
import { EXPORT_INCOMPLETE, type ExportFailureLine, exportAudit } from "../../src/audit/export-audit.ts";
import type { AuditDatabase } from "../../src/audit/write-audit-records.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { api } from "../support/api.ts";
import { adminPrincipal, auditRecord, auditRoutesAs, countRows } from "./support.ts";

const admin = adminPrincipal;
const agent = (keyId: string): Principal => ({ ...admin, keyId, name: keyId, role: "agent" });
const as = (principal: Principal) => auditRoutesAs(principal);

async function exported(response: Response): Promise<AuditRecordWire[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  // Decoded by hand: workerd warns on .text() of a media type it does not know as text.
  const text = new TextDecoder().decode(await response.arrayBuffer());
  return text === ""
    ? []
    : text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as AuditRecordWire);
}

const DAY = 86_400_000;
const D1 = Date.parse("2034-05-01T00:00:00Z");
const oldest = (records: AuditRecord[]) => [...records].sort((a, b) => a.at - b.at || a.rid - b.rid).map(auditRecordId);

describe("GET /v1/audit/export", () => {
  // Day 1 goes to R2; day 2 is archived too but its rows are also left in D1 (a run stopped
  // between writing and deleting); day 3 stays in D1 only.
  const day1 = [1, 2, 3].map((h) =>
    auditRecord({ keyId: h === 2 ? "key-exp-b" : "key-exp-a", at: D1 + h * 3_600_000, tool: h === 3 ? "exp_fetch" : "exp_echo" }),
  );
  const day2 = [1, 2].map((h) => auditRecord({ keyId: "key-exp-a", at: D1 + DAY + h * 3_600_000, tool: "exp_echo" }));
  const day3 = [1, 2, 3].map((h) =>
    auditRecord({ keyId: h === 1 ? "key-exp-b" : "key-exp-a", at: D1 + 2 * DAY + h * 3_600_000, tool: "exp_echo", status: h === 3 ? "error" : "ok" }),
  );
  const all = [...day1, ...day2, ...day3];
  const window = `since=${D1}&until=${D1 + 3 * DAY}`;

  beforeAll(async () => {
    await writeAuditRecords(env.DB, [...day1, ...day2]);
    await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 1, now: D1 + 3 * DAY });
    expect(await countRows("at >= ? AND at < ?", D1, D1 + 2 * DAY)).toBe(0);
    await writeAuditRecords(env.DB, [...day2, ...day3]);
  });

  it("streams the window from R2 and D1 alike, oldest first, each record once", async () => {
    const records = await exported(await as(admin)(`/v1/audit/export?${window}`));
    expect(records.map((r) => r.id)).toEqual(oldest(all));
    expect(records[0]).toMatchObject({ key_id: "key-exp-a", tool: "exp_echo", time: new Date(D1 + 3_600_000).toISOString() });
  });

  it("keeps to the window: since inclusive, until exclusive, across the archive and D1", async () => {
    const since = D1 + 2 * 3_600_000;
    const until = D1 + 2 * DAY + 2 * 3_600_000;
    const records = await exported(await as(admin)(`/v1/audit/export?since=${since}&until=${until}`));
    expect(records.map((r) => r.id)).toEqual(oldest(all.filter((r) => r.at >= since && r.at < until)));
  });

  it("shows a non-admin key only its own records, whatever key_id it asks for", async () => {
    const own = await exported(await as(agent("key-exp-b"))(`/v1/audit/export?${window}`));
    expect(own.map((r) => r.id)).toEqual(oldest(all.filter((r) => r.keyId === "key-exp-b")));
    expect(await exported(await as(agent("key-exp-b"))(`/v1/audit/export?${window}&key_id=key-exp-a`))).toEqual([]);
  });

  it("applies the listing's filters to archived and stored records alike", async () => {
    const fetches = await exported(await as(admin)(`/v1/audit/export?${window}&tool=exp_fetch`));
    expect(fetches.map((r) => r.id)).toEqual(oldest(day1.filter((r) => r.tool === "exp_fetch")));
    const errors = await exported(await as(admin)(`/v1/audit/export?${window}&status=error`));
    expect(errors.map((r) => r.id)).toEqual(oldest(day3.filter((r) => r.status === "error")));
  });

  it("answers bad windows with the 400 envelope naming the field", async () => {
    const get = as(admin);
    const cases: [string, string][] = [
      [`since=${D1}&until=${D1}`, "since"],
      [`since=${D1}&until=${D1 + 32 * DAY}`, "until"],
      ["since=yesterday", "since"],
      ["status=exploded", "status"],
    ];
    for (const [query, field] of cases) {
      const response = await get(`/v1/audit/export?${query}`);
      expect([query, response.status]).toEqual([query, 400]);
      const body = (await response.json()) as { error_code: string; issues: { path: string; message: string }[] };
      expect([query, body.error_code, body.issues.map((i) => i.path)]).toEqual([query, "INVALID_REQUEST", [field]]);
    }
  });

  it("is served by the Worker behind its key check, reading the bound archive", async () => {
    expect((await api(`/v1/audit/export?${window}`, { headers: { authorization: "" } })).status).toBe(401);
    expect((await exported(await api(`/v1/audit/export?${window}`))).map((r) => r.id)).toEqual(oldest(all));
  });

  it("ends an export cut short by a storage failure with an error line saying where to resume", async () => {
    // D1 answers the first day's page, then fails: the 200 is sent by then, so the body says it.
    let reads = 0;
    const failing: AuditDatabase = {
      batch: (statements) => env.DB.batch(statements),
      prepare: (sql) => {
        if (reads++ > 0) throw new Error("D1_ERROR: injected: storage unavailable");
        return env.DB.prepare(sql);
      },
    };
    const stream = exportAudit([{ db: failing, index: 0 }], undefined, { since: D1 + 2 * DAY, until: D1 + 4 * DAY });
    const lines = new TextDecoder()
      .decode(await new Response(stream).arrayBuffer())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as AuditRecordWire | ExportFailureLine);
    const last = lines.pop() as ExportFailureLine;
    expect(lines.map((r) => (r as AuditRecordWire).id)).toEqual(oldest(day3));
    const lastAt = Math.max(...day3.map((r) => r.at));
    expect(last.error).toMatchObject({ code: EXPORT_INCOMPLETE, resume_since: new Date(lastAt).toISOString() });
    expect(last.error.message).not.toContain("injected");
  });

  it("fetches only the archived chunks that can hold records of the window", async () => {
    const H = 3_600_000;
    const day = Date.parse("2034-06-01T00:00:00Z");
    const records = [1, 2, 3, 4, 5].map((h) => auditRecord({ keyId: "key-exp-chunks", at: day + h * H, tool: "exp_echo" }));
    await writeAuditRecords(env.DB, records);
    // One record per chunk, so the day's folder holds five chunks named after hours 1 to 5.
    await archiveAudit(env.DB, env.AUDIT_ARCHIVE, { afterDays: 1, now: day + 3 * DAY, chunkRows: 1 });
    const fetched: string[] = [];
    const bucket: AuditArchiveBucket = {
      put: (...args) => env.AUDIT_ARCHIVE.put(...args),
      head: (key) => env.AUDIT_ARCHIVE.head(key),
      list: (options) => env.AUDIT_ARCHIVE.list(options),
      get: (key) => {
        fetched.push(key.slice(key.lastIndexOf("/") + 1, key.indexOf("-", key.lastIndexOf("/"))));
        return env.AUDIT_ARCHIVE.get(key);
      },
    };
    const stream = exportAudit([{ db: env.DB, index: 0 }], bucket, { since: day + 2 * H + 1, until: day + 4 * H, keyId: "key-exp-chunks" });
    const text = new TextDecoder().decode(await new Response(stream).arrayBuffer());
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as AuditRecordWire).id),
    ).toEqual(oldest(records.slice(2, 3)));
    // Hour 1's chunk ends before since (hour 2 starts the next), hour 4's starts at until: neither is read.
    expect(fetched.map(Number)).toEqual([day + 2 * H, day + 3 * H]);
  });
});
