/**
 * Requests that do next to nothing, for the `runtime-costs` scenario: what the runtime itself
 * charges a request for a console line and for a timer turn, with no app, router or middleware
 * in the way. The bench Worker answers them before any of its apps, so none of its own log lines
 * (the request line of src/tracing/request-log.ts) is written for them.
 */
/// <reference path="../../worker-configuration.d.ts" />

export const RUNTIME_COSTS_PATH = "/__bench/runtime-costs";

/** What a request does besides reading and parsing its body and answering. */
export const RUNTIME_COST_MODES = ["plain", "one-line", "two-lines", "timer"] as const;
export type RuntimeCostMode = (typeof RUNTIME_COST_MODES)[number];

/**
 * A line shaped like toolgate's request line (the same fields, values of typical length), so a
 * line here costs what one of toolgate's does.
 */
const LINE = JSON.stringify({
  event: "request",
  request_id: "0f9e1c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b",
  trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
  principal: "key_3b4d4e5f",
  status: 200,
  error_code: null,
  duration_ms: 0,
  method: "POST",
  path: RUNTIME_COSTS_PATH,
});

const isMode = (value: string): value is RuntimeCostMode => (RUNTIME_COST_MODES as readonly string[]).includes(value);

/** The answer to `POST RUNTIME_COSTS_PATH?mode=...`; undefined for any other path. */
export function serveRuntimeCosts(request: Request): Promise<Response> | undefined {
  // A string test first, as serveWorstInputs does: every measured request passes here.
  if (!request.url.includes(RUNTIME_COSTS_PATH)) return undefined;
  const url = new URL(request.url);
  if (url.pathname !== RUNTIME_COSTS_PATH) return undefined;
  const mode = url.searchParams.get("mode") ?? "";
  if (!isMode(mode)) return Promise.resolve(refusal(`mode must be one of ${RUNTIME_COST_MODES.join(", ")}`));
  return answer(request, mode);
}

const refusal = (error: string): Response => Response.json({ error }, { status: 400 });

async function answer(request: Request, mode: RuntimeCostMode): Promise<Response> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await request.text());
  } catch {
    return refusal("the body must be JSON, as the bare reference's is");
  }
  if (mode === "one-line" || mode === "two-lines") console.log(LINE);
  if (mode === "two-lines") console.log(LINE);
  if (mode === "timer") await new Promise((resolve) => setTimeout(resolve, 0));
  return new Response(JSON.stringify({ ok: parsed !== undefined }), { headers: { "content-type": "application/json" } });
}
