/** Scripting the model of test/support/model-server.ts from a test inside workerd. */

import type { ScriptedTurn } from "./model-server.ts";
import { MODEL_HOST } from "./test-env.ts";

export type { ScriptedTurn };

/** A request toolgate sent the model, as the server received it. */
export interface SentRequest {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string } }[];
}

/**
 * Registers a script and returns its id; put `marker(id)` in the run's first message. Given an
 * id, replaces that script: a run started later with the same first message gets the new turns.
 */
export async function scriptModel(turns: ScriptedTurn[], id = crypto.randomUUID().replaceAll("-", "")): Promise<string> {
  const response = await fetch(`http://${MODEL_HOST}/__script/${id}`, { method: "POST", body: JSON.stringify({ turns }) });
  if (!response.ok) throw new Error(`scripting the model failed: ${response.status}`);
  return id;
}

export const marker = (id: string): string => `[script:${id}]`;

/** What toolgate sent under a script, in order, and the Authorization headers it sent. */
export async function sentToModel(id: string): Promise<{ requests: SentRequest[]; authorization: string[] }> {
  const response = await fetch(`http://${MODEL_HOST}/__requests/${id}`);
  return (await response.json()) as { requests: SentRequest[]; authorization: string[] };
}
