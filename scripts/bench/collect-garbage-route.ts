/**
 * A full garbage collection of one Worker's isolate, on request: every measured round is followed
 * by one in the isolate it measured (rounds.ts), outside the round's CPU window.
 *
 * Why: V8 runs a major collection (which also sweeps workerd's own objects) every few seconds
 * of load, in whichever round happens to be running, so one arm's round paid for garbage another
 * arm's rounds made. Collecting between rounds starts every round from a collected heap.
 * rounds.ts says why the collection is not counted in the round.
 *
 * workerd exposes `gc()` only with V8's `--expose-gc` (serve.ts passes it); its inspector does
 * not answer `HeapProfiler.collectGarbage`. The bench Worker serves this before any app, and
 * each MCP peer through a wrapper made at bundling (peers.ts), so the peers' own code is
 * unchanged and every side pays the same path check.
 */
/// <reference path="../../worker-configuration.d.ts" />

export const COLLECT_GARBAGE_PATH = "/__bench/collect-garbage";

/** V8's flag that defines `gc()` in every isolate of the workerd the bench starts. */
export const EXPOSE_GC_FLAG = "--expose-gc";

/** The answer to `POST COLLECT_GARBAGE_PATH`: 204 once collected; undefined for any other path. */
export function serveCollectGarbage(request: Request): Response | undefined {
  // A string test first, as the other bench routes do: every measured request passes here.
  if (!request.url.includes(COLLECT_GARBAGE_PATH)) return undefined;
  if (new URL(request.url).pathname !== COLLECT_GARBAGE_PATH) return undefined;
  if (request.method !== "POST") return Response.json({ error: "collect garbage with POST" }, { status: 405, headers: { allow: "POST" } });
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return Response.json({ error: `gc() is not defined: start workerd with V8's ${EXPOSE_GC_FLAG}` }, { status: 501 });
  gc();
  return new Response(null, { status: 204 });
}
