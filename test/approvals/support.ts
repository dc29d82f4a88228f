/**
 * Shared by the approvals tests: risky test tools that count their runs (the Session object runs
 * in the same isolate as the tests, so a module-level count sees its runs too), keys, and the
 * requests an agent and an approver make.
 */
import { expect } from "vitest";
import { z } from "zod";
import { defineTool, registry } from "../../src/registry/registry.ts";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

/** Runs per `note` argument, across the test file. */
export const runs = new Map<string, number>();

/** The test file's tools: `${prefix}_write` (risky), `${prefix}_after` (depends on it), `${prefix}_plain`. */
export function registerApprovalTools(prefix: string): () => void {
  const specs = [
    defineTool({
      name: `${prefix}_write`,
      toolset: `${prefix}-set`,
      risky: true,
      schema: z.object({ note: z.string(), delayMs: z.number().int().min(0).default(0), apiToken: z.string().optional() }),
      handler: async ({ note, delayMs }) => {
        runs.set(note, (runs.get(note) ?? 0) + 1);
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return { written: note };
      },
    }),
    defineTool({
      name: `${prefix}_after`,
      toolset: `${prefix}-set`,
      dependsOn: [`${prefix}_write`],
      schema: z.object({ note: z.string() }),
      handler: ({ note }) => {
        runs.set(`after:${note}`, (runs.get(`after:${note}`) ?? 0) + 1);
        return { after: note };
      },
    }),
    defineTool({
      name: `${prefix}_plain`,
      toolset: `${prefix}-set`,
      schema: z.object({ note: z.string() }),
      handler: ({ note }) => ({ plain: note }),
    }),
  ];
  for (const spec of specs) expect(registry.register(spec)).toMatchObject({ ok: true });
  return () => specs.forEach((spec) => registry.deregister(spec.name));
}

export interface Key {
  id: string;
  key: string;
}

export const as = (key: Key) => ({ authorization: `Bearer ${key.key}` });

export interface CallResult {
  id: string;
  tool: string;
  status: string;
  error_code: string | null;
  approval?: { id: string; expires_at: number; url: string };
  message: { role?: string; content: string };
}

export interface Batch {
  session_id: string;
  results: CallResult[];
}

/** POST /v1/tool-calls as `key`. */
export async function callTools(key: Key, sessionId: string, calls: unknown[]): Promise<Batch> {
  const res = await api("/v1/tool-calls", { body: { session_id: sessionId, tool_calls: calls }, headers: as(key) });
  expect(res.status).toBe(200);
  return json<Batch>(res);
}

/** The one result of a batch of one call. */
export function only(batch: Batch): CallResult {
  expect(batch.results).toHaveLength(1);
  return batch.results[0] as CallResult;
}

export function decide(key: Key, id: string, body: Record<string, unknown>, sessionId?: string): Promise<Response> {
  return api(`/v1/approvals/${id}${sessionId === undefined ? "" : `?session_id=${sessionId}`}`, { body, headers: as(key) });
}

/** The audit rows of an approval, once the queue consumer has written `n` of them. */
export function auditRowsOf(approvalId: string, n: number): Promise<Record<string, unknown>[]> {
  return waitForAuditRows("approval_id = ?", [approvalId], n);
}
