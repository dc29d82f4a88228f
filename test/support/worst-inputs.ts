/**
 * Runs a tool's declared worst inputs (ToolSpec.worstInputs) through the real pipeline inside
 * workerd: its setup calls, then the hostile call, as one key. Through dispatchCall rather than
 * /v1/tool-calls because a worst input is bigger than the test Worker's 1 MiB body limit (the
 * hostile suite raises it); everything past the HTTP edge is the same.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { CallOutcome } from "../../src/pipeline/types.ts";
import { registry } from "../../src/registry/registry.ts";
import type { WorstInput } from "../../src/registry/worst-input.ts";
import { workspacePrefix } from "../../src/storage/workspace-keys.ts";
import { dispatchCall } from "./dispatch.ts";

/** `tool`'s worst input whose name starts with `prefix`. */
export function worstInput(tool: string, prefix: string): WorstInput {
  const found = registry.get(tool)?.worstInputs?.find((w) => w.name.startsWith(prefix));
  if (found === undefined) throw new Error(`${tool} declares no worst input named '${prefix}...'`);
  return found;
}

/** Runs `input`'s setup and then its call as a key of its own; the call's outcome and the key. */
export async function runWorst(tool: string, input: WorstInput): Promise<{ outcome: CallOutcome; keyId: string }> {
  const keyId = `worst-${crypto.randomUUID().slice(0, 8)}`;
  const context = { env, sessionId: `worst-${keyId}`, keyId };
  const setup = input.setup?.() ?? [];
  // A few at a time, as the hostile suite batches them: a thousand one after another is slow.
  for (let from = 0; from < setup.length; from += 20) {
    const done = await Promise.all(
      setup.slice(from, from + 20).map((call, i) => dispatchCall(call.tool, call.args, { ...context, callId: `${keyId}-setup-${from + i}` })),
    );
    for (const outcome of done) expect(outcome.status, outcome.content.slice(0, 500)).toBe("ok");
  }
  return { outcome: await dispatchCall(tool, input.args(), { ...context, callId: `${keyId}-call` }), keyId };
}

/** `keyId`'s stored text of `path`, or null. */
export async function storedText(keyId: string, path: string): Promise<string | null> {
  const object = await env.WORKSPACE.get(workspacePrefix("key", keyId, "") + path);
  return object === null ? null : object.text();
}
