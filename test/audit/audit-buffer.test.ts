import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuditBuffer, QUEUE_BATCH_MESSAGES } from "../../src/audit/audit-buffer.ts";
import { checkCandidate } from "../../src/audit/audit-candidate.ts";
import { AUDIT_MESSAGE_CONTENT_TYPE, candidatesOf } from "../../src/audit/audit-message.ts";
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
  it("packs records several to a text message, within the queue's message, batch-count and batch-size limits", async () => {
    const queue = fakeQueue();
    const buffer = new AuditBuffer();
    const records = filled("key-chunks", 250, 4000);
    for (const record of records) buffer.add(record);
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });

    const sent = queue.batches.flat();
    expect(sent.every((m) => m.contentType === AUDIT_MESSAGE_CONTENT_TYPE && typeof m.body === "string")).toBe(true);
    const carried = sent.flatMap((m) => candidatesOf(m.body) ?? []).map(checkCandidate);
    expect(carried).toEqual(records.map((record) => ({ ok: true, record })));
    // About 4.5 KB each: several records to a message, not one.
    expect(sent.length).toBeLessThan(records.length / 5);
    const bytes = (text: string) => new TextEncoder().encode(text).length;
    for (const message of sent) expect(bytes(message.body as string)).toBeLessThanOrEqual(128 * 1024);
    for (const batch of queue.batches) {
      expect(batch.length).toBeLessThanOrEqual(QUEUE_BATCH_MESSAGES);
      expect(batch.reduce((sum, m) => sum + bytes(m.body as string), 0)).toBeLessThan(256 * 1024);
    }
  });

  it("keeps a message within 128 KB when records are made of multi-byte characters", async () => {
    const queue = fakeQueue();
    const buffer = new AuditBuffer();
    const wide = Array.from({ length: 60 }, (_, i) =>
      auditRecord({ keyId: "key-wide", toolCallId: `call_${i}`, arguments: JSON.stringify({ text: "\u{1F600}".repeat(1000) }) }),
    );
    for (const record of wide) buffer.add(record);
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });
    const sent = queue.batches.flat();
    expect(sent.flatMap((m) => candidatesOf(m.body) ?? [])).toHaveLength(60);
    for (const message of sent) expect(new TextEncoder().encode(message.body as string).length).toBeLessThanOrEqual(128 * 1024);
  });

  it("sends 250 small records in one sendBatch of two messages, and nothing for an empty or already flushed buffer", async () => {
    const queue = fakeQueue();
    const buffer = new AuditBuffer();
    for (const record of filled("key-small", 250)) buffer.add(record);
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });
    await buffer.flush({ AUDIT_QUEUE: queue, DB: env.DB });
    expect(queue.batches).toHaveLength(1);
    expect(queue.batches[0]).toHaveLength(2);
    expect(queue.batches.flat().flatMap((m) => candidatesOf(m.body) ?? [])).toHaveLength(250);
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
    for (const record of records) expect(logged).toContain(`"rid":${record.rid}`);
    expect(await countRows("key_id = ?", "key-lost")).toBe(0);
  });
});
