/**
 * Runs one handler once and classifies what happened. The gateway layer wraps this with
 * deadlines and retries; everything a handler can do (return, throw, reject, throw a typed
 * ToolFailureError) ends here as a value, never as an exception.
 */
import { type ToolFailure, ToolFailureError } from "../errors/tool-failure.ts";
import type { ToolContext, ToolEntry } from "../registry/types.ts";
import { describeThrown } from "./sanitize-error.ts";
import { serializeResult } from "./serialize-result.ts";
import { isTimeoutError } from "./upstream-fetch.ts";

export type HandlerRun = { ok: true; content: string; value: unknown } | { ok: false; failure: ToolFailure };

/** Marks an error a tool throws as worth retrying (a transient upstream fault, say). */
export function isRetryableThrown(thrown: unknown): boolean {
  return typeof thrown === "object" && thrown !== null && (thrown as { retryable?: unknown }).retryable === true;
}

/** Calls the handler and turns its return value or exception into a HandlerRun. */
export async function runHandler(entry: ToolEntry, args: Record<string, unknown>, context: ToolContext): Promise<HandlerRun> {
  let value: unknown;
  try {
    value = await entry.handler(args, context);
  } catch (thrown) {
    if (thrown instanceof ToolFailureError) return { ok: false, failure: thrown.failure };
    const detail = describeThrown(entry.name, thrown);
    if (isTimeoutError(thrown)) return { ok: false, failure: { kind: "own_timeout", name: entry.name, detail, retryable: true } };
    // Log the redacted text, not the raw exception: messages often quote credentials.
    console.error(detail);
    return { ok: false, failure: { kind: "handler_threw", name: entry.name, detail, retryable: isRetryableThrown(thrown) } };
  }
  const serialized = serializeResult(value);
  if (!serialized.ok) return { ok: false, failure: { kind: "bad_result_type", name: entry.name, resultType: serialized.resultType } };
  return { ok: true, content: serialized.content, value };
}
