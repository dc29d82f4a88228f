import { createExecutionContext, createMessageBatch, getQueueResult, type MessageBatchMessage } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { packAuditMessages } from "../../src/audit/audit-message.ts";
import type { AuditRecord } from "../../src/audit/audit-record.ts";
import { AUDIT_COLUMNS, toRowValues } from "../../src/audit/audit-table.ts";
import { AUDIT_DLQ_NAME, AUDIT_QUEUE_NAME, handleAuditQueue, retryDelaySeconds } from "../../src/audit/handle-audit-queue.ts";
import { auditRecord, countRows, type Fault, flakyDatabase } from "./support.ts";

const message = (body: unknown, attempts = 1): MessageBatchMessage => ({ id: crypto.randomUUID(), timestamp: Date.now(), attempts, body });
/** One message carrying `records`, exactly as the producer packs them. */
const packed = (records: AuditRecord[]): MessageBatchMessage => {
  const bodies = packAuditMessages(records).flatMap((b) => b.bodies);
  if (bodies.length !== 1) throw new Error(`expected one message, packed ${bodies.length}`);
  return message(bodies[0]);
};

/**
 * Delivers messages to the consumer and returns what it acked and retried. getQueueResult
 * (vitest-plugin 1.5.0) drops the `delaySeconds` a retry asks for, so each message is passed
 * through a wrapper that notes it on the way to the real message.
 */
async function deliver(queue: string, messages: MessageBatchMessage[], db: Pick<D1Database, "prepare" | "batch"> = env.DB) {
  const batch = createMessageBatch(queue, messages);
  const delays = new Map<string, number | undefined>();
  const observed: MessageBatch = {
    queue: batch.queue,
    metadata: batch.metadata,
    ackAll: () => batch.ackAll(),
    retryAll: (options) => batch.retryAll(options),
    messages: batch.messages.map((m) => ({
      id: m.id,
      timestamp: m.timestamp,
      body: m.body,
      attempts: m.attempts,
      ack: () => m.ack(),
      retry: (options?: QueueRetryOptions) => {
        delays.set(m.id, options?.delaySeconds);
        m.retry(options);
      },
    })),
  };
  await handleAuditQueue(observed, { DB: db });
  const result = await getQueueResult(batch, createExecutionContext());
  expect(result.ackAll || result.retryBatch.retry).toBe(false);
  return { acked: result.explicitAcks, retried: result.retryMessages.map((r) => ({ id: r.msgId, delaySeconds: delays.get(r.msgId) })) };
}

describe("the audit queue consumer", () => {
  it("writes a batch and acks every message", async () => {
    const messages = Array.from({ length: 10 }, () => message(auditRecord({ keyId: "key-ack" })));
    const result = await deliver(AUDIT_QUEUE_NAME, messages);
    expect(result.acked.sort()).toEqual(messages.map((m) => m.id).sort());
    expect(result.retried).toEqual([]);
    expect(await countRows("key_id = ?", "key-ack")).toBe(10);
  });

  it("retries every message with a delay that grows with its attempts when D1 fails", async () => {
    const down = flakyDatabase(env.DB, () => "before");
    const messages = [1, 3, 9, 12].map((attempts) => message(auditRecord({ keyId: "key-retry" }), attempts));
    const result = await deliver(AUDIT_QUEUE_NAME, messages, down);
    expect(result.acked).toEqual([]);
    expect(result.retried).toEqual(messages.map((m, i) => ({ id: m.id, delaySeconds: [2, 8, 300, 300][i] })));
    expect(await countRows("key_id = ?", "key-retry")).toBe(0);
  });

  it("retries on the dead-letter queue on a slower schedule, with the same writer", async () => {
    expect([1, 2, 30, 100].map((n) => retryDelaySeconds(n, AUDIT_DLQ_NAME))).toEqual([60, 120, 1800, 3600]);
    const ok = await deliver(AUDIT_DLQ_NAME, [message(auditRecord({ keyId: "key-dlq" }), 11)]);
    expect(ok.acked).toHaveLength(1);
    expect(await countRows("key_id = ?", "key-dlq")).toBe(1);
  });

  it("acks a body that is not an audit record instead of retrying it forever, and still writes the rest", async () => {
    const good = message(auditRecord({ keyId: "key-poison" }));
    const bad = message({ hello: "world" });
    const result = await deliver(AUDIT_QUEUE_NAME, [good, bad]);
    expect(result.acked.sort()).toEqual([good.id, bad.id].sort());
    expect(await countRows("key_id = ?", "key-poison")).toBe(1);
  });

  it("writes every record of several-record messages, and of one-record messages in the format sent before them", async () => {
    const messages = [
      packed([auditRecord({ keyId: "key-multi" }), auditRecord({ keyId: "key-multi" })]),
      packed([auditRecord({ keyId: "key-multi" })]),
      message(auditRecord({ keyId: "key-multi" })),
    ];
    const result = await deliver(AUDIT_QUEUE_NAME, messages);
    expect(result.acked.sort()).toEqual(messages.map((m) => m.id).sort());
    expect(await countRows("key_id = ?", "key-multi")).toBe(4);
  });

  it("drops a record that is not an audit record and still writes, then acks, the rest of its message", async () => {
    const good = auditRecord({ keyId: "key-bad-record" });
    const body = JSON.stringify({ records: [good, { ...auditRecord({ keyId: "key-bad-record" }), status: "exploded" }] });
    const delivered = message(body);
    const result = await deliver(AUDIT_QUEUE_NAME, [delivered, message("not json {")]);
    expect(result.acked).toHaveLength(2);
    expect(await countRows("key_id = ?", "key-bad-record")).toBe(1);
  });

  it("stores exactly N rows from several-record messages when D1 fails intermittently and messages are redelivered whole", async () => {
    const N = 300;
    const schedule = (call: number): Fault => (call % 2 === 0 ? "before" : call % 3 === 0 ? "after" : "ok");
    const flaky = flakyDatabase(env.DB, schedule);
    // Messages of 1 to 7 records, as groups of different sizes would send them.
    let waiting: MessageBatchMessage[] = [];
    for (let made = 0, size = 1; made < N; made += size, size = (size % 7) + 1) {
      waiting.push(packed(Array.from({ length: Math.min(size, N - made) }, () => auditRecord({ keyId: "key-fault-multi" }))));
    }
    for (let round = 0; waiting.length > 0 && round < 100; round++) {
      const next: MessageBatchMessage[] = [];
      for (let start = 0; start < waiting.length; start += 10) {
        const delivered = waiting.slice(start, start + 10);
        const result = await deliver(AUDIT_QUEUE_NAME, delivered, flaky);
        for (const retry of result.retried) {
          const original = delivered.find((m) => m.id === retry.id);
          if (original === undefined) throw new Error(`retry for unknown message ${retry.id}`);
          next.push({ ...original, attempts: original.attempts + 1 });
        }
        expect(result.acked.length + result.retried.length).toBe(delivered.length);
      }
      waiting = next;
    }
    expect(waiting).toEqual([]);
    expect(flaky.faults.before).toBeGreaterThan(0);
    expect(flaky.faults.after).toBeGreaterThan(0);
    expect(await countRows("key_id = ?", "key-fault-multi")).toBe(N);
  });

  it("stores exactly N rows when D1 fails intermittently, before and after commits, and messages are redelivered", async () => {
    const N = 200;
    // Every 2nd call fails before reaching D1; every 3rd (odd) call commits and then fails.
    const schedule = (call: number): Fault => (call % 2 === 0 ? "before" : call % 3 === 0 ? "after" : "ok");
    const flaky = flakyDatabase(env.DB, schedule);
    let waiting = Array.from({ length: N }, () => message(auditRecord({ keyId: "key-fault" })));
    const acked = new Set<string>();

    for (let round = 0; waiting.length > 0 && round < 100; round++) {
      const next: MessageBatchMessage[] = [];
      for (let start = 0; start < waiting.length; start += 30) {
        const delivered = waiting.slice(start, start + 30);
        const result = await deliver(AUDIT_QUEUE_NAME, delivered, flaky);
        for (const id of result.acked) acked.add(id);
        for (const retry of result.retried) {
          const original = delivered.find((m) => m.id === retry.id);
          if (original === undefined) throw new Error(`retry for unknown message ${retry.id}`);
          expect(retry.delaySeconds).toBe(retryDelaySeconds(original.attempts, AUDIT_QUEUE_NAME));
          next.push({ ...original, attempts: original.attempts + 1 });
        }
        expect(result.acked.length + result.retried.length).toBe(delivered.length);
      }
      waiting = next;
    }

    expect(waiting).toEqual([]);
    expect(acked.size).toBe(N);
    expect(flaky.faults.before).toBeGreaterThan(0);
    expect(flaky.faults.after).toBeGreaterThan(0);
    expect(await countRows("key_id = ?", "key-fault")).toBe(N);
  });

  it("binds current-format messages unparsed; when D1 refuses a bad row, checks each record, drops only that one and writes the rest", async () => {
    const good = [auditRecord({ keyId: "key-fast-bad" }), auditRecord({ keyId: "key-fast-bad" })];
    const row = toRowValues(auditRecord({ keyId: "key-fast-bad" }));
    row[AUDIT_COLUMNS.indexOf("status")] = "exploded";
    const bad = message(`{"v":2,"rows":[${JSON.stringify(row)}]}`);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const result = await deliver(AUDIT_QUEUE_NAME, [packed(good), bad]);
    expect(result.acked).toHaveLength(2);
    expect(result.retried).toEqual([]);
    expect(await countRows("key_id = ?", "key-fast-bad")).toBe(2);
    expect(errors.mock.calls.map((call) => call.join(" ")).join("\n")).toContain("status");
    errors.mockRestore();
  });

  it("checks rows queued before request_id and run_id were columns as records without them, instead of dropping them", async () => {
    const full = toRowValues(auditRecord({ keyId: "key-short-rows" }));
    const beforeRequestIds = full.slice(0, AUDIT_COLUMNS.indexOf("request_id"));
    const beforeRunIds = toRowValues(auditRecord({ keyId: "key-short-rows" })).slice(0, AUDIT_COLUMNS.indexOf("run_id"));
    const bad = toRowValues(auditRecord({ keyId: "key-short-rows" }));
    bad[AUDIT_COLUMNS.indexOf("status")] = "exploded";
    // The bad row makes D1 refuse the batch, so every row goes through the per-record check.
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const result = await deliver(AUDIT_QUEUE_NAME, [
      message(`{"v":2,"rows":[${JSON.stringify(beforeRequestIds)},${JSON.stringify(beforeRunIds)},${JSON.stringify(bad)}]}`),
    ]);
    expect(result.acked).toHaveLength(1);
    expect(await countRows("key_id = ?", "key-short-rows")).toBe(2);
    expect(errors.mock.calls.map((call) => call.join(" ")).join("\n")).not.toContain("values, this one");
    errors.mockRestore();
  });

  it("writes records of the formats before rows (TEXT ids), each once however often it is redelivered", async () => {
    const { rid: _rid, errorMessage: _message, ...withoutRid } = auditRecord({ keyId: "key-old-format" });
    const old = { ...withoutRid, id: crypto.randomUUID() };
    const { rid: _rid2, errorMessage: _message2, ...lone } = auditRecord({ keyId: "key-old-format" });
    const bodies = [JSON.stringify({ records: [old] }), { ...lone, id: crypto.randomUUID() }];
    for (let delivery = 0; delivery < 2; delivery++) {
      const result = await deliver(
        AUDIT_QUEUE_NAME,
        bodies.map((body) => message(body)),
      );
      expect(result.acked).toHaveLength(2);
    }
    expect(await countRows("key_id = ?", "key-old-format")).toBe(2);
  });
});
