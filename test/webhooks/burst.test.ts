/**
 * A burst through the real queue: 200 signed deliveries arrive at once; each is answered 202,
 * each runs exactly once in the background, and each call leaves exactly one audit record.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";
import { json } from "../support/json.ts";
import { genericHeaders, post, probeRuns, registerProbeWebhook } from "./support.ts";

const N = 200;

async function count(sql: string, ...params: string[]): Promise<number> {
  return (
    (
      await env.DB.prepare(sql)
        .bind(...params)
        .first<{ n: number }>()
    )?.n ?? 0
  );
}

describe("a burst of deliveries", () => {
  it(`${N} deliveries make exactly ${N} background runs and ${N} audit records`, { timeout: 120_000 }, async () => {
    // Rate limits hold for webhooks too: 120 calls per minute per principal and tool by default,
    // so the burst goes to two webhooks (two principals), 100 deliveries each.
    registerProbeWebhook("t-burst-a");
    registerProbeWebhook("t-burst-b");
    const webhookOf = (i: number): string => (i % 2 === 0 ? "t-burst-a" : "t-burst-b");
    const responses: Response[] = [];
    for (let start = 0; start < N; start += 50) {
      const wave = Array.from({ length: 50 }, async (_, i) => {
        const body = JSON.stringify({ keys: [`burst-${start + i}`] });
        return post(webhookOf(start + i), body, await genericHeaders(body, { delivery: `burst-${start + i}` }));
      });
      responses.push(...(await Promise.all(wave)));
    }
    expect(responses.map((r) => r.status)).toEqual(new Array(N).fill(202));
    const ids = new Set((await Promise.all(responses.map((r) => json<{ delivery_id: string }>(r)))).map((a) => a.delivery_id));
    expect(ids.size).toBe(N);

    await vi.waitFor(
      async () => {
        expect(await count("SELECT COUNT(*) AS n FROM hook_deliveries WHERE hook IN (?, ?) AND status = 'done'", "t-burst-a", "t-burst-b")).toBe(N);
        expect(await count(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE key_id IN (?, ?)`, "hook:t-burst-a", "hook:t-burst-b")).toBe(N);
      },
      { timeout: 90_000, interval: 200 },
    );
    const runs = [...probeRuns].filter(([key]) => key.startsWith("burst-"));
    expect(runs).toHaveLength(N);
    expect(runs.every(([, n]) => n === 1)).toBe(true);
    expect(await count(`SELECT COUNT(*) AS n FROM ${AUDIT_TABLE} WHERE key_id IN (?, ?) AND status = 'ok'`, "hook:t-burst-a", "hook:t-burst-b")).toBe(N);
    expect(await count(`SELECT COUNT(DISTINCT session_id) AS n FROM ${AUDIT_TABLE} WHERE key_id IN (?, ?)`, "hook:t-burst-a", "hook:t-burst-b")).toBe(N);
    expect(await count("SELECT COUNT(*) AS n FROM hook_events WHERE hook IN (?, ?) AND outcome = 'accepted'", "t-burst-a", "t-burst-b")).toBe(N);
  });
});
