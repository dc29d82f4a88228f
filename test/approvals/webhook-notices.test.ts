/**
 * The Session object's outbox toward webhook deliveries, in a real object's SQLite storage, with
 * the queue failing on purpose: a notice is written only for a webhook's approval, survives a
 * failed send with a growing delay, and is deleted once the queue took it; each send that changes
 * the outbox says so, for the caller to re-aim the object's alarm.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { pendingRow } from "../../src/approvals/approval-row.ts";
import { noteSettledForWebhook, sendWebhookNotices } from "../../src/approvals/webhook-notices.ts";

const row = (requestedBy: string, sessionId: string) =>
  pendingRow({
    sessionId,
    toolCallId: `${sessionId}-c1`,
    tool: "t",
    toolset: undefined,
    requestedBy,
    ttlMs: 1000,
    shown: "{}",
    argumentsSha256: "a",
    exact: "{}",
    bindingSha256: "b",
    now: Date.now(),
  });

/** A queue that refuses the first `failures` sends and keeps the rest. */
function queue(failures: number): { queue: Queue; sent: unknown[] } {
  const sent: unknown[] = [];
  let left = failures;
  const send = async (body: unknown): Promise<void> => {
    if (left-- > 0) throw new Error("queue unavailable");
    sent.push(body);
  };
  // biome-ignore lint/plugin/no-double-cast: a fake queue binding with only send, which records what was sent
  return { queue: { send } as unknown as Queue, sent };
}

describe("the hook notice outbox", () => {
  it("keeps a notice whose send failed, retries it once due, and deletes it once sent", async () => {
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName("hn-delivery-1"));
    await runInDurableObject(stub, async (_instance, state) => {
      const sql = state.storage.sql;
      const settled = row("hook:hn", "hn-delivery-1");
      expect(noteSettledForWebhook(sql, row("agent-key-id", "hn-delivery-1"))).toBe(false);
      expect(noteSettledForWebhook(sql, settled)).toBe(true);

      const flaky = queue(1);
      const t0 = Date.now();
      expect(await sendWebhookNotices(sql, flaky.queue, t0)).toBe(true);
      const kept = sql.exec<{ attempts: number; due_at: number }>("SELECT attempts, due_at FROM hook_notices").toArray();
      expect(kept).toEqual([{ attempts: 1, due_at: t0 + 2000 }]);
      expect(await sendWebhookNotices(sql, flaky.queue, t0 + 1000)).toBe(false);
      expect(flaky.sent).toEqual([]);

      // Sent: the outbox changed, so the caller re-aims the alarm away from the notice's times.
      expect(await sendWebhookNotices(sql, flaky.queue, t0 + 2000)).toBe(true);
      expect(flaky.sent).toEqual([{ kind: "approval_settled", deliveryId: "hn-delivery-1", approvalId: settled.id }]);
      expect(sql.exec("SELECT * FROM hook_notices").toArray()).toEqual([]);
    });
  });
});
