import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { checkCandidate } from "../../src/audit/audit-candidate.ts";
import { AuditGroupCommit, STALE_GROUP_MS } from "../../src/audit/audit-group-commit.ts";
import { candidatesOf } from "../../src/audit/audit-message.ts";
import { auditRecordId } from "../../src/audit/audit-record.ts";
import { auditRecord, countRows } from "./support.ts";

/** The id of a record as a message carries it. */
function idOf(candidate: unknown): string {
  const checked = checkCandidate(candidate);
  if (!checked.ok) throw new Error(`not an audit record: ${checked.why}`);
  return auditRecordId(checked.record);
}

/**
 * The real audit queue producer, watched: every sendBatch is noted with the record ids it
 * carried and whether it has finished.
 */
function watchedQueue() {
  const sends: { ids: string[]; done: boolean }[] = [];
  const queue: Pick<Queue, "sendBatch"> = {
    async sendBatch(messages, options) {
      const list = [...messages];
      const send = { ids: list.flatMap((m) => (candidatesOf(m.body) ?? []).map((r) => idOf(r))), done: false };
      sends.push(send);
      const result = await env.AUDIT_QUEUE.sendBatch(list, options);
      send.done = true;
      return result;
    },
  };
  return { sends, sink: { AUDIT_QUEUE: queue, DB: env.DB } };
}

const records = (keyId: string, n: number) => Array.from({ length: n }, (_, i) => auditRecord({ keyId, toolCallId: `call_${i}` }));

describe("audit group commit", () => {
  it("sends the records of concurrent requests in one sendBatch, handing only the group's opener the flush to wait for", async () => {
    const { sends, sink } = watchedQueue();
    const group = new AuditGroupCommit({ maxDelayMs: 20 });
    const [a, b, c] = [records("gc-a", 1), records("gc-b", 2), records("gc-c", 1)];
    const [opener, ...others] = [a, b, c].map((batch) => group.add(sink, batch));
    // The others' records ride on the opener's group: their requests need no waitUntil of their own.
    expect(others).toEqual([undefined, undefined]);
    expect(opener).toBeInstanceOf(Promise);
    await opener;
    // Settling means the send that carried every request's records has finished.
    expect(sends).toHaveLength(1);
    expect(sends[0]?.done).toBe(true);
    expect(sends[0]?.ids).toEqual([...a, ...b, ...c].map(auditRecordId));
  });

  it("hands a request that fills another's group the send it started, and leaves the opener's timer alone", async () => {
    const { sends, sink } = watchedQueue();
    const group = new AuditGroupCommit({ maxRecords: 3, maxDelayMs: 50 });
    const opener = group.add(sink, records("gc-fill-a", 1));
    expect(group.add(sink, records("gc-fill-b", 1))).toBeUndefined();
    const filler = group.add(sink, records("gc-fill-c", 1));
    expect(filler).toBeInstanceOf(Promise);
    await filler;
    expect(sends.map((s) => [s.ids.length, s.done])).toEqual([[3, true]]);
    // The opener's wait ends on its own timer (no other request may settle it), sending nothing more.
    await opener;
    expect(sends).toHaveLength(1);
  });

  it("sends a group as soon as it is full, and starts the next one for later records", async () => {
    const { sends, sink } = watchedQueue();
    const group = new AuditGroupCommit({ maxRecords: 3, maxDelayMs: 60_000 });
    // Full at once: sent now, not at the opener's 60 s timer.
    void group.add(sink, records("gc-full", 3));
    await vi.waitFor(() => expect(sends.map((s) => [s.ids.length, s.done])).toEqual([[3, true]]));
    const later = group.add(sink, records("gc-full-later", 1));
    if (later === undefined) throw new Error("the next group's opener must be handed its flush");
    const settled = await Promise.race([later.then(() => "sent"), new Promise((resolve) => setTimeout(() => resolve("waiting"), 50))]);
    // The next group waits for company (up to its delay) instead of riding on the full one.
    expect(settled).toBe("waiting");
    expect(sends).toHaveLength(1);
    // Filled, it goes now too. (Left to its 60 s timer, it wrote its record into whichever test
    // file this workerd ran a minute later.)
    await group.add(sink, records("gc-full-last", 2));
    expect(sends.map((s) => [s.ids.length, s.done])).toEqual([
      [3, true],
      [3, true],
    ]);
  });

  it("sends a lone request's records after the delay", async () => {
    const { sends, sink } = watchedQueue();
    const group = new AuditGroupCommit({ maxDelayMs: 5 });
    await group.add(sink, records("gc-lone", 2));
    expect(sends.map((s) => s.ids.length)).toEqual([2]);
  });

  it("keeps every record of a group when the queue refuses it, by writing them to D1", async () => {
    const refusing = { AUDIT_QUEUE: { sendBatch: () => Promise.reject(new Error("Queue send failed: 503")) }, DB: env.DB };
    const group = new AuditGroupCommit({ maxDelayMs: 5 });
    await Promise.all([group.add(refusing, records("gc-refused", 2)), group.add(refusing, records("gc-refused", 3))]);
    expect(await countRows("key_id = ?", "gc-refused")).toBe(5);
  });

  it("sends a group whose timer never ran (its request is gone) when the next records arrive", async () => {
    const { sends, sink } = watchedQueue();
    let now = 1_000_000;
    // A delay far beyond the test: only the stale-group rule can send the first group, and only
    // filling it (two records) sends the group the next records open.
    const group = new AuditGroupCommit({ maxRecords: 2, maxDelayMs: 600_000, now: () => now });
    const first = records("gc-stale", 1);
    void group.add(sink, first);
    now += STALE_GROUP_MS;
    const next = group.add(sink, records("gc-stale-next", 1));
    // The request that found the group stale sends it, and its wait covers that send.
    expect(next).toBeInstanceOf(Promise);
    await vi.waitFor(() => expect(sends.map((s) => [s.ids, s.done])).toEqual([[first.map(auditRecordId), true]]));
    await group.add(sink, records("gc-stale-last", 1));
    expect(sends.map((s) => s.ids.length)).toEqual([1, 2]);
  });
});
