/**
 * The hourly rollups (migrations/0012_audit_rollups.sql, src/audit/audit-rollups.ts) against the
 * raw audit rows: after a load of calls through the Worker, the real audit queue and its real
 * consumer into D1, after redelivered and concurrent batches; then GET /metrics, which serves
 * them, for admins and keys with the `metrics` scope only.
 */
import { createExecutionContext, createMessageBatch, createScheduledController, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { packAuditMessages } from "../../src/audit/audit-message.ts";
import { AUDIT_ROLLUP_BUCKETS_MS, AUDIT_ROLLUPS_TABLE, HOUR_MS } from "../../src/audit/audit-rollups.ts";
import { AUDIT_TABLE, type AuditRow, fromRow } from "../../src/audit/audit-table.ts";
import { AUDIT_ROLLUP_TOTALS_TABLE, ROLLUP_HOURS_KEPT_MS } from "../../src/audit/fold-rollups.ts";
import { AUDIT_QUEUE_NAME, handleAuditQueue } from "../../src/audit/handle-audit-queue.ts";
import worker from "../../src/index.ts";
import { auditRecord } from "../audit/support.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const buckets = AUDIT_ROLLUP_BUCKETS_MS.map((bound) => `le_${bound}`);

/** What the rollups must hold for these keys, computed from the raw rows. */
async function fromRawRows(keyIds: string[]) {
  const { results } = await env.DB.prepare(
    `SELECT at / 3600000 * 3600000 AS hour, tool, key_id, COUNT(*) AS calls, SUM(status IN ('error', 'timed_out')) AS errors,
      SUM(duration_ms) AS duration_ms_sum, MAX(duration_ms) AS duration_ms_max,
      ${AUDIT_ROLLUP_BUCKETS_MS.map((bound) => `SUM(duration_ms <= ${bound}) AS le_${bound}`).join(", ")}
    FROM ${AUDIT_TABLE} WHERE key_id IN (${keyIds.map(() => "?").join(", ")}) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  )
    .bind(...keyIds)
    .all();
  return results;
}

async function rollups(keyIds: string[]) {
  const { results } = await env.DB.prepare(
    `SELECT hour, tool, key_id, SUM(calls) AS calls, SUM(errors) AS errors, SUM(duration_ms_sum) AS duration_ms_sum, MAX(duration_ms_max) AS duration_ms_max,
      ${buckets.map((b) => `SUM(${b}) AS ${b}`).join(", ")}
    FROM ${AUDIT_ROLLUPS_TABLE} WHERE key_id IN (${keyIds.map(() => "?").join(", ")}) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  )
    .bind(...keyIds)
    .all();
  return results;
}

/** Calls per (hour, error code) for these keys: from the raw rows, and from the rollups. */
async function errorCodes(keyIds: string[]) {
  const list = keyIds.map(() => "?").join(", ");
  const [raw, rolled] = await env.DB.batch([
    env.DB.prepare(
      `SELECT at / 3600000 * 3600000 AS hour, error_code AS code, COUNT(*) AS calls FROM ${AUDIT_TABLE} WHERE key_id IN (${list}) AND error_code IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
    ).bind(...keyIds),
    env.DB.prepare(
      `SELECT hour, error_code AS code, SUM(calls) AS calls FROM ${AUDIT_ROLLUPS_TABLE} WHERE key_id IN (${list}) AND error_code <> '' GROUP BY 1, 2 ORDER BY 1, 2`,
    ).bind(...keyIds),
  ]);
  return { raw: raw?.results, rolled: rolled?.results };
}

/** Delivers `bodies` to the real consumer as one batch, as the queue would; fails unless every message is acked. */
async function deliver(bodies: unknown[]) {
  const batch = createMessageBatch(
    AUDIT_QUEUE_NAME,
    bodies.map((body) => ({ id: crypto.randomUUID(), timestamp: Date.now(), attempts: 1, body })),
  );
  await handleAuditQueue(batch, env);
  const result = await getQueueResult(batch, createExecutionContext());
  expect(result.explicitAcks).toHaveLength(bodies.length);
}

const packed = (records: Parameters<typeof packAuditMessages>[0]) => packAuditMessages(records).flatMap((b) => b.bodies);

describe("the audit rollups", () => {
  it("equal the raw audit rows after a load of calls through the queue", async () => {
    const keys = [await createKey({ name: "rollup-a", role: "agent" }), await createKey({ name: "rollup-b", role: "agent" })];
    const perKey = 6;
    for (const key of keys) {
      for (let round = 0; round < perKey / 3; round++) {
        const res = await api("/v1/tool-calls", {
          headers: as(key.key),
          body: {
            tool_calls: [
              openaiCall(`ok-${round}`, "echo", { text: "hello" }),
              openaiCall(`bad-${round}`, "echo", { text: 42 }),
              openaiCall(`unknown-${round}`, "no_such_tool", {}),
            ],
          },
        });
        expect(res.status).toBe(200);
      }
    }
    for (const key of keys) await waitForAuditRows("key_id = ?", [key.id], perKey);
    const ids = keys.map((k) => k.id);
    const expected = await fromRawRows(ids);
    expect(expected.reduce((sum, row) => sum + Number(row.calls), 0)).toBe(keys.length * perKey);
    expect(expected.some((row) => Number(row.errors) > 0)).toBe(true);
    expect(await rollups(ids)).toEqual(expected);
    const codes = await errorCodes(ids);
    expect(codes.raw?.length).toBeGreaterThan(0);
    expect(codes.rolled).toEqual(codes.raw);
  });

  it("count a redelivered batch, and two concurrent batches sharing records, once", async () => {
    const keyId = `rollup-redeliver-${crypto.randomUUID()}`;
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    const records = Array.from({ length: 40 }, (_, i) =>
      auditRecord({
        keyId,
        tool: i % 2 === 0 ? "echo" : "clock",
        at: hour + i,
        durationMs: i * 37,
        ...(i % 5 === 0 ? { status: "error", errorCode: i % 10 === 0 ? "UPSTREAM_ERROR" : "TOOL_ERROR", errorMessage: "failed" } : {}),
      }),
    );
    await deliver(packed(records));
    const once = await rollups([keyId]);
    expect(once.reduce((sum, row) => sum + Number(row.calls), 0)).toBe(40);

    // The same messages again (a lost ack), and two overlapping batches at once.
    await deliver(packed(records));
    await Promise.all([deliver(packed(records.slice(0, 30))), deliver(packed(records.slice(10)))]);
    expect(await rollups([keyId])).toEqual(once);
    expect(await rollups([keyId])).toEqual(await fromRawRows([keyId]));
    const codes = await errorCodes([keyId]);
    expect(codes.rolled).toEqual(codes.raw);

    // Stored rows read back and sent again are skipped too.
    const { results } = await env.DB.prepare(`SELECT * FROM ${AUDIT_TABLE} WHERE key_id = ?`).bind(keyId).all<AuditRow>();
    await deliver(packed(results.map(fromRow)));
    expect(await rollups([keyId])).toEqual(once);
  });
});

describe("GET /metrics", () => {
  it("serves the rollups in Prometheus text format to an admin", async () => {
    const keyId = `metrics-${crypto.randomUUID()}`;
    await deliver(packed([auditRecord({ keyId, tool: "echo", durationMs: 7 }), auditRecord({ keyId, tool: "echo", durationMs: 70, status: "timed_out" })]));
    const res = await api("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    const labels = `tool="echo",key_id="${keyId}"`;
    expect(text).toContain("# TYPE toolgate_tool_calls_total counter");
    expect(text).toContain(`toolgate_tool_calls_total{${labels}} 2\n`);
    expect(text).toContain(`toolgate_tool_errors_total{${labels}} 1\n`);
    expect(text).toContain("# TYPE toolgate_tool_call_duration_milliseconds histogram");
    expect(text).toContain(`toolgate_tool_call_duration_milliseconds_bucket{${labels},le="5"} 0\n`);
    expect(text).toContain(`toolgate_tool_call_duration_milliseconds_bucket{${labels},le="10"} 1\n`);
    expect(text).toContain(`toolgate_tool_call_duration_milliseconds_bucket{${labels},le="100"} 2\n`);
    expect(text).toContain(`toolgate_tool_call_duration_milliseconds_bucket{${labels},le="+Inf"} 2\n`);
    expect(text).toContain(`toolgate_tool_call_duration_milliseconds_sum{${labels}} 77\n`);
    expect(text).toContain(`toolgate_tool_call_duration_milliseconds_count{${labels}} 2\n`);
  });

  it("refuses a key without the metrics scope and serves one that holds it", async () => {
    expect((await api("/metrics", { headers: { authorization: "" } })).status).toBe(401);
    const agent = await createKey({ name: "metrics-no-scope", role: "agent" });
    const refused = await api("/metrics", { headers: as(agent.key) });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ error_code: "FORBIDDEN", error: expect.stringContaining("'metrics' scope") });

    const scraper = await json<{ id: string; key: string; scopes: string[] }>(
      await api("/v1/keys", { body: { name: "scraper", role: "agent", scopes: ["metrics"] } }),
    );
    expect(scraper.scopes).toEqual(["metrics"]);
    expect((await api("/metrics", { headers: as(scraper.key) })).status).toBe(200);

    // Granted later to the first key: the key cache forgets it on update.
    const granted = await api(`/v1/keys/${agent.id}`, { method: "PATCH", body: { scopes: ["metrics"] } });
    expect(await json(granted)).toMatchObject({ scopes: ["metrics"] });
    expect((await api("/metrics", { headers: as(agent.key) })).status).toBe(200);
  });

  it("refuses an unknown scope with a structured error", async () => {
    const res = await api("/v1/keys", { body: { name: "bad-scope", role: "agent", scopes: ["everything"] } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await json(res))).toContain("scopes");
  });
});

describe("folding old hours into all-time totals (the daily cron)", () => {
  const DAY = 86_400_000;
  /** This key's lines of the /metrics text. */
  async function metricsOf(keyId: string): Promise<string[]> {
    const text = await (await api("/metrics")).text();
    return text.split("\n").filter((line) => line.includes(`key_id="${keyId}"`));
  }
  async function hourlyRows(keyId: string): Promise<number[]> {
    const { results } = await env.DB.prepare(`SELECT hour FROM ${AUDIT_ROLLUPS_TABLE} WHERE key_id = ? ORDER BY hour`).bind(keyId).all<{ hour: number }>();
    return results.map((row) => row.hour);
  }
  async function runCron(now: number): Promise<void> {
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime: now, cron: "17 3 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
  }

  it("leaves /metrics' counters as they were, keeps the console's week hourly, and counts nothing twice when run again", async () => {
    const keyId = `fold-${crypto.randomUUID()}`;
    const now = Date.now();
    const at = [now - 40 * DAY, now - 20 * DAY, now - 20 * DAY + 1, now - 9 * DAY, now - 2 * DAY, now];
    await deliver(
      packed(
        at.map((time, i) =>
          auditRecord({ keyId, at: time, durationMs: 3 + i * 40, status: i === 1 ? "error" : "ok", errorCode: i === 1 ? "TOOL_ERROR" : null }),
        ),
      ),
    );
    const before = await metricsOf(keyId);
    expect(before).toContain(`toolgate_tool_calls_total{tool="echo",key_id="${keyId}"} 6`);
    // One row per hour and error code: the two records 20 days ago differ in their code.
    expect(await hourlyRows(keyId)).toHaveLength(6);

    await runCron(now);
    expect(await metricsOf(keyId)).toEqual(before);
    const kept = await hourlyRows(keyId);
    expect(kept.every((hour) => hour >= now - ROLLUP_HOURS_KEPT_MS - HOUR_MS)).toBe(true);
    expect(kept).toHaveLength(2);
    const { results } = await env.DB.prepare(`SELECT error_code, calls, errors FROM ${AUDIT_ROLLUP_TOTALS_TABLE} WHERE key_id = ? ORDER BY error_code`)
      .bind(keyId)
      .all();
    expect(results).toEqual([
      { error_code: "", calls: 3, errors: 0 },
      { error_code: "TOOL_ERROR", calls: 1, errors: 1 },
    ]);

    // Again, and then a late batch for an hour already folded: counters only go up, by what arrived.
    await runCron(now);
    expect(await metricsOf(keyId)).toEqual(before);
    await deliver(packed([auditRecord({ keyId, at: now - 30 * DAY, durationMs: 3 })]));
    await runCron(now);
    expect(await metricsOf(keyId)).toContain(`toolgate_tool_calls_total{tool="echo",key_id="${keyId}"} 7`);
    expect(await hourlyRows(keyId)).toHaveLength(2);
  });
});
