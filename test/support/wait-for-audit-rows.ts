import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { AUDIT_TABLE } from "../../src/audit/audit-table.ts";

/**
 * The audit rows matching `where`, oldest first, once at least `n` are there: the audit
 * queue's consumer writes them after the response, so they are polled. Fails naming how many
 * rows it found when `timeout` passes first.
 */
export function waitForAuditRows(where: string, params: (string | number)[], n = 1, timeout = 10_000): Promise<Record<string, unknown>[]> {
  return vi.waitFor(
    async () => {
      const { results } = await env.DB.prepare(`SELECT * FROM ${AUDIT_TABLE} WHERE ${where} ORDER BY at, rid`)
        .bind(...params)
        .all();
      if (results.length < n) throw new Error(`expected ${n} ${AUDIT_TABLE} rows WHERE ${where} [${params.join(", ")}], found ${results.length}`);
      return results;
    },
    { timeout, interval: 50 },
  );
}
