/**
 * Shared by the files toolset's tests: an agent key, calls through /v1/tool-calls, and seeding
 * a key's workspace straight in the local R2 bucket (for what no call can write: a 10 MB file,
 * binary bytes).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { workspacePrefix } from "../../../src/storage/workspace-keys.ts";
import { type CallResult, callTools, type Key, only } from "../../approvals/support.ts";
import { createKey } from "../../support/create-key.ts";
import { openaiCall } from "../../support/tool-calls.ts";

export { type CallResult, callTools, type Key, only };

/** A new agent key, unique per test. */
export const agentKey = (name: string): Promise<Key> => createKey({ name: `files-${name}-${crypto.randomUUID().slice(0, 8)}`, role: "agent" });

/** Stores `content` as `path` in `key`'s workspace (the default, per-key scope). */
export async function seed(key: Key, path: string, content: string | Uint8Array): Promise<void> {
  await env.WORKSPACE.put(workspacePrefix("key", key.id, "") + path, content);
}

/** `key`'s stored text of `path`, or null. */
export async function stored(key: Key, path: string): Promise<string | null> {
  const object = await env.WORKSPACE.get(workspacePrefix("key", key.id, "") + path);
  return object === null ? null : object.text();
}

/** One call of `tool` as `key`; its result. */
export async function call(key: Key, tool: string, args: Record<string, unknown>, sessionId = "files-session"): Promise<CallResult> {
  return only(await callTools(key, sessionId, [openaiCall(`c-${crypto.randomUUID()}`, tool, args)]));
}

/** The parsed content of a successful call. */
export function ok(result: CallResult): Record<string, unknown> {
  expect(result.status, result.message.content).toBe("ok");
  return JSON.parse(result.message.content) as Record<string, unknown>;
}

/** The parsed envelope of a failed call with `code`. */
export function failed(result: CallResult, code: string): Record<string, unknown> {
  expect(result, result.message.content).toMatchObject({ status: "error", error_code: code });
  return JSON.parse(result.message.content) as Record<string, unknown>;
}
