/**
 * The requests the benchmark sends, shared by the bench Worker (which replays them once to
 * build its bare routes) and the load generator, so both sides agree on the bytes.
 */

/**
 * A POST /v1/tool-calls body of `count` OpenAI tool calls of one tool (ids c1, c2, …), with
 * any other body fields (`max_parallel_calls`, say) after them.
 */
export function toolCallsBody(name: string, args: Record<string, unknown>, count = 1, fields: Record<string, unknown> = {}): string {
  const argumentsJson = JSON.stringify(args);
  const toolCalls = Array.from({ length: count }, (_, i) => ({ id: `c${i + 1}`, type: "function", function: { name, arguments: argumentsJson } }));
  return JSON.stringify({ tool_calls: toolCalls, ...fields });
}

/** One trivial call: the smallest request that runs the whole dispatch pipeline. */
export const ECHO_CALL_BODY = toolCallsBody("echo", { text: "hi" });

export const TOOL_CALLS_PATH = "/v1/tool-calls";
export const TOOLS_PATH = "/v1/tools";

/** Same request bytes in, the bytes POST /v1/tool-calls answers out, nothing in between. */
export const BARE_CALL_PATH = "/__bench/bare-call";
/** Answers the bytes GET /v1/tools answers, so only the listing's own work differs. */
export const BARE_TOOLS_PATH = "/__bench/bare-tools";
/**
 * Same request bytes as POST /v1/tool-calls with one call, run through the core pipeline
 * without the gateway layer (no runBatch, no execute), answering the same JSON shape.
 */
export const CORE_CALL_PATH = "/__bench/core-call";

export const JSON_HEADERS = { "content-type": "application/json" } as const;
