/**
 * `POST /v1/tool-calls` as server-sent events, for agents that feed early results to the model:
 * each call's result is sent the moment it is final (runBatch's onOutcome), then the whole
 * batch as the plain route would have answered it. Asked for with `Accept: text/event-stream`;
 * without it the route answers JSON as before, and none of this runs.
 */
import type { Context } from "hono";
import type { OnResult } from "../../batch/serve-calls.ts";
import { type CallResult, type NormalizedCall, toCallResult } from "../../formats/tool-calls.ts";
import type { CallOutcome } from "../../pipeline/types.ts";
import { describeRequestFailure } from "../request-failure.ts";
import { waitUntilOf } from "../wait-until.ts";

/** Whether the Accept header asks for an event stream (a media range with q=0 refuses it). */
export function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes("text/event-stream")) return false;
  return accept.split(",").some((range) => {
    const [type, ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    return type === "text/event-stream" && !params.some((p) => /^q=0(?:\.0{0,3})?$/.test(p));
  });
}

const encoder = new TextEncoder();

/** One SSE event; JSON text has no raw newlines, so `data` is always one line. */
function event(name: string, data: unknown): Uint8Array {
  return encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * Answers with an event stream and runs the batch into it: `result` events (`{index, id,
 * result}`) in finishing order, then one `batch` event (`{session_id, results}`, in call order);
 * should the batch fail all the same, an `error` event with the request error body ends it instead.
 *
 * @param run starts the batch, calling `onResult` as each call ends; it never rejects (serveCalls).
 */
export function streamResults(c: Context, sessionId: string, calls: readonly NormalizedCall[], run: (onResult: OnResult) => Promise<CallOutcome[]>): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  // A client that went away makes writes fail; the batch runs to its end regardless (and is audited).
  const send = (chunk: Uint8Array) => void writer.write(chunk).catch(() => undefined);
  const results: CallResult[] = [];
  const finished = run((outcome, index) => {
    const call = calls[index];
    if (call === undefined) return;
    const result = toCallResult(call, outcome);
    results[index] = result;
    send(event("result", { index, id: call.id, result }));
  })
    .then(
      (outcomes) => {
        const all = calls.map((call, i) => results[i] ?? toCallResult(call, outcomes[i] as CallOutcome));
        send(event("batch", { session_id: sessionId, results: all }));
      },
      (error: unknown) => {
        // A bug, since the batch never rejects: the JSON route would answer 500 INTERNAL; the
        // stream has already answered 200, so it says the same in an event and ends, rather
        // than staying open with no batch to come.
        console.error("streamed batch failed", error);
        send(event("error", describeRequestFailure({ kind: "internal" }).body));
      },
    )
    .finally(() => void writer.close().catch(() => undefined));
  // The batch finishes (and is audited) even when the client stops reading the stream.
  waitUntilOf(c)(finished);
  return c.body(readable, 200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
}
