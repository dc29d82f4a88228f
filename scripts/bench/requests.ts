/**
 * The requests the benchmark sends, shared by the bench Worker (which replays them once to
 * build its bare routes) and the load generator, so both sides agree on the bytes.
 */

/** One trivial call: the smallest request that runs the whole dispatch pipeline. */
export const ECHO_CALL_BODY = JSON.stringify({
  tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: JSON.stringify({ text: "hi" }) } }],
});

export const TOOL_CALLS_PATH = "/v1/tool-calls";
export const TOOLS_PATH = "/v1/tools";

/** Same request bytes in, the bytes POST /v1/tool-calls answers out, nothing in between. */
export const BARE_CALL_PATH = "/__bench/bare-call";
/** Answers the bytes GET /v1/tools answers, so only the listing's own work differs. */
export const BARE_TOOLS_PATH = "/__bench/bare-tools";

export const JSON_HEADERS = { "content-type": "application/json" } as const;
