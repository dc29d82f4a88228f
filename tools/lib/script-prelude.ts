/**
 * The guest half of execute_code's sandbox (run-script.ts is the host half), as source text
 * QuickJS evaluates before each script.
 */

/**
 * The guest side, run before the script: it keeps its own JSON functions and Promise's `then`
 * (the script may overwrite the globals), exposes `tools` as a proxy (any name is a tool; a
 * failed call throws a ToolError carrying the gateway's error envelope) and wraps the script's end
 * into one JSON string for the host.
 */
export const PRELUDE = String.raw`
"use strict";
(() => {
  const call = globalThis.__toolgate_call;
  delete globalThis.__toolgate_call;
  const stringify = JSON.stringify, parse = JSON.parse, then = Promise.prototype.then;
  class ToolError extends Error {
    constructor(tool, outcome) {
      super(outcome.error.error);
      this.name = "ToolError";
      this.tool = tool;
      this.code = outcome.error.error_code;
      this.status = outcome.status;
      this.callId = outcome.callId;
      this.retryable = outcome.error.retryable;
      if (outcome.error.approval) this.approval = outcome.error.approval;
    }
  }
  const tool = (name) => async (args) => {
    const outcome = parse(await call(name, stringify(args === undefined ? {} : args)));
    if (outcome.status === "ok") return outcome.result;
    throw new ToolError(name, outcome);
  };
  const tools = new Proxy(Object.freeze({}), {
    get: (_, name) => (typeof name === "string" && name !== "then" ? tool(name) : undefined),
  });
  Object.defineProperty(globalThis, "tools", { value: tools, enumerable: true });
  Object.defineProperty(globalThis, "ToolError", { value: ToolError });
  const end = (value) => {
    try {
      return stringify({ ok: true, result: value === undefined ? null : value }) ?? stringify({ ok: true, result: null });
    } catch (error) {
      return stringify({ ok: false, error: { name: "TypeError", message: "the script's return value is not JSON: " + String(error && error.message) } });
    }
  };
  const fail = (error) => stringify({
    ok: false,
    error: error instanceof Error
      ? { name: error.name, message: String(error.message), stack: String(error.stack ?? "") }
      : { name: "Error", message: "the script threw a non-Error value: " + String(error) },
  });
  Object.defineProperty(globalThis, "__toolgate_end", { value: (promise) => then.call(promise, end, fail) });
})();
`;
