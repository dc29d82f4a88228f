import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuditBuffer, QUEUE_BATCH_MESSAGES } from "../../src/audit/audit-buffer.ts";
import { AuditRecordSchema, type AuditRecord } from "../../src/audit/audit-record.ts";
import { auditRecord, countRows, flakyDatabase } from "./support.ts";

/** A queue producer that keeps what it was sent, or refuses everything. */
function fakeQueue(refuse = false) {
  const batches: MessageSendRequest[][] = [];
  return {
    batches,
    sendBatch: (messages: Iterable<MessageSendRequest>) => {
      if (refuse) return Promise.reject(new Error("Queue send failed: 503"));
      batches.push([...messages]);
      return Promise.resolve({ metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } } });
    },
  };
}

const filled = (keyId: string, n: number, argumentsChars = 10) =>
  Array.from({ length: n }, (_, i) => auditRecord({ keyId, toolCallId: `call_${i}`, arguments: JSON.stringify({ text: "x".repeat(argumentsChars) }) }));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("flushing a request's audit records", () => {
  it("sends one record per JSON message, in batches within the queue's 100-message and 256 KB limits", async () => {
    const queue = fakeQueue();
    const buffer = new AuditBuffer();
    const records = filled("key-chunks", 250, 4000);
    for (const record of records) buffer.add(record);
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });

    const sent = queue.batches.flat();
    expect(sent.map((m) => (m.body as AuditRecord).id)).toEqual(records.map((r) => r.id));
    expect(sent.every((m) => m.contentType === "json" && AuditRecordSchema.safeParse(m.body).success)).toBe(true);
    expect(queue.batches.length).toBeGreaterThan(Math.ceil(250 / QUEUE_BATCH_MESSAGES));
    for (const batch of queue.batches) {
      expect(batch.length).toBeLessThanOrEqual(QUEUE_BATCH_MESSAGES);
      expect(new TextEncoder().encode(JSON.stringify(batch.map((m) => m.body))).length).toBeLessThan(256 * 1024);
    }
  });

  it("sends small records 100 to a batch, and nothing for an empty or already flushed buffer", async () => {
    const queue = fakeQueue();
    const buffer = new AuditBuffer();
    for (const record of filled("key-small", 150)) buffer.add(record);
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });
    expect(queue.batches.map((b) => b.length)).toEqual([100, 50]);
    expect(buffer.size).toBe(0);
  });

  it("writes the records to D1 directly when the queue refuses them", async () => {
    const buffer = new AuditBuffer();
    for (const record of filled("key-fallback", 120)) buffer.add(record);
    await buffer.flush({ AUDIT_QUEUE: fakeQueue(true), DB: env.DB });
    expect(await countRows("key_id = ?", "key-fallback")).toBe(120);
  });

  it("logs the records whole at error level, and still resolves, when the queue and D1 both fail", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const buffer = new AuditBuffer();
    const records = filled("key-lost", 3);
    for (const record of records) buffer.add(record);
    await expect(buffer.flush({ AUDIT_QUEUE: fakeQueue(true), DB: flakyDatabase(env.DB, () => "before") })).resolves.toBeUndefined();

    expect(errors).toHaveBeenCalledTimes(1);
    const logged = errors.mock.calls[0]?.map(String).join(" ") ?? "";
    expect(logged).toContain("AUDIT RECORDS LOST");
    for (const record of records) expect(logged).toContain(record.id);
    expect(await countRows("key_id = ?", "key-lost")).toBe(0);
  });
});
