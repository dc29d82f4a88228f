/** Driving agent runs through the API in tests. */
import { expect } from "vitest";
import { api } from "./api.ts";
import { json } from "./json.ts";

export interface WireRun {
  id: string;
  status: string;
  session_id: string;
  turns: number;
  tool_calls: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  steps: { turn: number; calls: { id: string; tool: string; status: string; error_code: string | null; approval?: { id: string; url: string } }[] }[];
  pending_approvals: { call_id: string; tool: string; approval_id: string; url: string }[];
  answer: string | null;
  finish_reason: string | null;
  client_tool_calls: { id: string; function: { name: string } }[];
  error: { code: string; message: string } | null;
  parent_run_id: string | null;
  messages?: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: { id: string }[] }[];
}

/** POST /v1/runs, expecting 202. */
export async function startRun(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<WireRun> {
  const response = await api("/v1/runs", { body, headers });
  expect(response.status).toBe(202);
  return json<WireRun>(response);
}

export async function getRun(id: string, headers: Record<string, string> = {}): Promise<WireRun> {
  const response = await api(`/v1/runs/${id}`, { headers });
  expect(response.status).toBe(200);
  return json<WireRun>(response);
}

/** Reads the run until its status is one of `statuses` (the run's alarm drives it meanwhile). */
export async function runUntil(id: string, statuses: readonly string[], timeoutMs = 10_000): Promise<WireRun> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await getRun(id);
    if (statuses.includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} is still ${run.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
