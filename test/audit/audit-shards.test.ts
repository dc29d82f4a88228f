import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { archiveAudit } from "../../src/audit/archive-audit.ts";
import { archiveFolder } from "../../src/audit/audit-archive-keys.ts";
import { type AuditRecord, auditRecordId } from "../../src/audit/audit-record.ts";
import { auditShards, shardIndex, writeShardedRowLists } from "../../src/audit/audit-shards.ts";
import { auditStats } from "../../src/audit/audit-stats.ts";
import { AUDIT_TABLE, toRowValues } from "../../src/audit/audit-table.ts";
import type { AuditRecordWire, toWireStats } from "../../src/audit/audit-wire.ts";
import { handleAuditQueue } from "../../src/audit/handle-audit-queue.ts";
import { writeAuditRecords } from "../../src/audit/write-audit-records.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { ConfigError } from "../../src/config/config.ts";
import { migrateAuditShards } from "../support/migrate-audit-shards.ts";
import { adminPrincipal, auditRecord, auditRoutesAs } from "./support.ts";

const sharded = { ...env, AUDIT_SHARDS: "DB_AUDIT_1, DB_AUDIT_2" } as Env & { AUDIT_SHARDS: string };
const databases = () => [env.DB, env.DB_AUDIT_1, env.DB_AUDIT_2].filter((db) => db !== undefined);

const admin = adminPrincipal;
const agent = (keyId: string): Principal => ({ ...admin, keyId, name: keyId, role: "agent" });

function as(principal: Principal) {
  const send = auditRoutesAs(principal, sharded);
  return async <T>(path: string) => {
    const response = await send(path);
    return { status: response.status, body: (await response.json()) as T };
  };
}

/** Which database holds each record, by id. */
async function homes(records: AuditRecord[]): Promise<number[]> {
  const found: number[] = [];
  for (const record of records) {
    const hits = await Promise.all(
      databases().map((db) => db.prepare(`SELECT 1 FROM ${AUDIT_TABLE} WHERE at = ? AND rid = ?`).bind(record.at, record.rid).first()),
    );
    found.push(hits.findIndex((hit) => hit !== null));
  }
  return found;
}

const newestFirst = (records: AuditRecord[]) => [...records].sort((a, b) => b.at - a.at || b.rid - a.rid).map(auditRecordId);
const T0 = Date.parse("2036-02-01T00:00:00Z");
// Keys spread over all three shards (shardIndex is checked below, so the spread is not assumed).
const keys = Array.from({ length: 9 }, (_, i) => `key-shard-${i}`);

beforeAll(migrateAuditShards);

describe("the audit log over several D1 databases", () => {
  const records = keys.flatMap((keyId, k) =>
    Array.from({ length: 7 }, (_, i) =>
      auditRecord({
        keyId,
        at: T0 + i * 1000 + k,
        tool: i % 2 === 0 ? "shard_echo" : "shard_fetch",
        status: i === 3 ? "error" : "ok",
        errorMessage: i === 3 ? `boom ${k % 2}` : null,
        durationMs: (k + 1) * 10 + i,
      }),
    ),
  );

  beforeAll(async () => {
    expect(new Set(keys.map((key) => shardIndex(key, 3))).size).toBe(3);
    // Through the queue consumer, as production writes them: one message of rows per key.
    const messages = keys.map((keyId, k) => {
      const rows = records.filter((r) => r.keyId === keyId).map((r) => toRowValues(r));
      return { id: `m${k}`, timestamp: new Date(), attempts: 1, body: JSON.stringify({ v: 2, rows }), ack() {}, retry() {} };
    });
    // biome-ignore lint/plugin/no-double-cast: a fake batch with only what handleAuditQueue reads
    await handleAuditQueue({ queue: "toolgate-audit", messages, retryAll() {}, ackAll() {} } as unknown as MessageBatch<unknown>, sharded);
  });

  it("writes each record to the shard of its key's hash, and nowhere else", async () => {
    expect(await homes(records)).toEqual(records.map((r) => shardIndex(r.keyId, 3)));
    // Written again (a redelivery): nothing is added anywhere.
    expect(
      await writeShardedRowLists(
        sharded,
        records.map((r) => JSON.stringify(toRowValues(r))),
      ),
    ).toBe(0);
  });

  it("lists a key from its one shard, and an admin's listing merges every shard newest first across pages", async () => {
    const own = await as(agent("key-shard-4"))<{ records: AuditRecordWire[] }>(`/v1/audit?since=${T0}`);
    expect(own.body.records.map((r) => r.id)).toEqual(newestFirst(records.filter((r) => r.keyId === "key-shard-4")));

    const get = as(admin);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: { records: AuditRecordWire[]; next_cursor: string | null } } = await get(
        `/v1/audit?since=${T0}&limit=5${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.records.map((r) => r.id));
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 40);
    expect(seen).toEqual(newestFirst(records));
  });

  it("merges a filtered admin listing across pages without losing or repeating a record", async () => {
    const get = as(admin);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { body: { records: AuditRecordWire[]; next_cursor: string | null } } = await get(
        `/v1/audit?since=${T0}&status=error&limit=2${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      seen.push(...page.body.records.map((r) => r.id));
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 40);
    expect(seen).toEqual(newestFirst(records.filter((r) => r.status === "error")));
  });

  it("answers admin stats over every shard exactly as one database holding them all would", async () => {
    const window = { since: T0, until: T0 + 3_600_000 };
    const { body } = await as(admin)<{ total: ReturnType<typeof toWireStats>; tools: (ReturnType<typeof toWireStats> & { tool: string })[] }>(
      `/v1/audit/stats?since=${window.since}&until=${window.until}`,
    );
    // The reference: the same records in one database (DB_AUDIT_2's copy, under a distinct window).
    const shift = 365 * 86_400_000;
    const single = env.DB_AUDIT_2;
    if (single === undefined) throw new Error("DB_AUDIT_2 is not bound (vitest.config.ts)");
    await writeAuditRecords(
      single,
      records.map((r) => ({ ...r, at: r.at + shift })),
    );
    const reference = await auditStats(single, { since: window.since + shift, until: window.until + shift });
    expect(body.total).toMatchObject({
      calls: reference.total.calls,
      errors: reference.total.errors,
      p50_ms: reference.total.p50Ms,
      p95_ms: reference.total.p95Ms,
      statuses: reference.total.statuses,
      top_messages: reference.total.topMessages,
    });
    expect(body.tools.map((t) => [t.tool, t.calls, t.p50_ms, t.p95_ms, t.top_messages])).toEqual(
      reference.tools.map((t) => [t.tool, t.calls, t.p50Ms, t.p95Ms, t.topMessages]),
    );
    expect(body.total.calls).toBe(records.length);
  });

  it("exports every shard and its archive folder in time order, and a key only its own", async () => {
    const day = T0;
    await Promise.all(auditShards(sharded).map((db, shard) => archiveAudit(db, env.AUDIT_ARCHIVE, { afterDays: 1, now: day + 3 * 86_400_000, shard })));
    expect((await env.AUDIT_ARCHIVE.list({ prefix: archiveFolder(day, 1) })).objects.length).toBeGreaterThan(0);
    const send = auditRoutesAs(admin, sharded);
    const response = await send(`/v1/audit/export?since=${T0}&until=${T0 + 86_400_000}`);
    const lines = new TextDecoder()
      .decode(await response.arrayBuffer())
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as AuditRecordWire).id);
    expect(lines).toEqual(newestFirst(records).reverse());

    const own = await send(`/v1/audit/export?since=${T0}&until=${T0 + 86_400_000}&key_id=key-shard-5`);
    const ownLines = new TextDecoder()
      .decode(await own.arrayBuffer())
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as AuditRecordWire).id);
    expect(ownLines).toEqual(newestFirst(records.filter((r) => r.keyId === "key-shard-5")).reverse());
  });

  it("refuses a shard list naming a binding that is not a D1 database", () => {
    expect(() => auditShards({ DB: env.DB, AUDIT_SHARDS: "DB_AUDIT_9" })).toThrow(ConfigError);
    expect(() => auditShards({ DB: env.DB, AUDIT_SHARDS: "DB_AUDIT_9" })).toThrow(/DB_AUDIT_9/);
  });

  it("refuses a shard list naming a binding twice, or DB, which would be read and archived twice", () => {
    expect(() => auditShards({ ...env, AUDIT_SHARDS: "DB_AUDIT_1, DB_AUDIT_1" })).toThrow(/"DB_AUDIT_1" twice/);
    expect(() => auditShards({ DB: env.DB, AUDIT_SHARDS: "DB" })).toThrow(ConfigError);
  });
});
