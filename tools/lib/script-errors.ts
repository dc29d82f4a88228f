/**
 * How a run's failures read: an error handle read out of QuickJS, the kind its message names
 * (QuickJS reports running out of memory, stack or time as an ordinary thrown error), and the
 * message the model gets when the host stopped the script.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import type { GuestError, ScriptErrorKind, ScriptLimit, ScriptLimits } from "./script-types.ts";

const INTERRUPTED = /interrupted/i;
const OUT_OF_MEMORY = /out of memory/i;
const STACK_OVERFLOW = /stack overflow|too much recursion|maximum call stack/i;

/** Reads, and frees, a thrown value: an Error's name, message and stack, or a note of what else was thrown. */
export function describeError(context: QuickJSContext, errorHandle: QuickJSHandle): GuestError {
  const dumped: unknown = errorHandle.consume((handle) => context.dump(handle));
  if (typeof dumped === "object" && dumped !== null && "message" in dumped) {
    const { name, message, stack } = dumped as { name?: unknown; message?: unknown; stack?: unknown };
    return { name: typeof name === "string" ? name : "Error", message: String(message), ...(typeof stack === "string" && stack !== "" ? { stack } : {}) };
  }
  return { name: "Error", message: `the script threw a non-Error value: ${typeof dumped === "string" ? dumped : JSON.stringify(dumped)}` };
}

/** The kind of failure an error message names: a limit QuickJS hit, or the script's own exception. */
export function errorKind(message: string): ScriptErrorKind {
  if (OUT_OF_MEMORY.test(message)) return "memory";
  if (STACK_OVERFLOW.test(message)) return "stack";
  if (INTERRUPTED.test(message)) return "timeout";
  return "exception";
}

/** What the model is told when the host stopped the run: which budget, and how to stay within it. */
export function stopMessage(kind: ScriptErrorKind, limit: ScriptLimit | undefined, limits: ScriptLimits): string {
  switch (kind) {
    case "timeout":
      if (limit === "slice")
        return `the script computed for more than ${limits.sliceMs} ms of CPU without awaiting and was stopped: other requests wait while it runs. Split long work into chunks and \`await null\` between them; the whole script may use up to its timeout_ms (${limits.timeoutMs} ms) of CPU that way`;
      if (limit === "total") return `the script ran past its ${limits.timeoutMs} ms budget of CPU (timeout_ms) and was stopped`;
      return `the script ran past its ${limits.timeoutMs} ms budget (timeout_ms, wall-clock, tool calls included) and was stopped`;
    case "tool_call_limit":
      return `the script made more than ${limits.maxToolCalls} tool calls; the limit is ${limits.maxToolCalls} per script`;
    default:
      return `the script was stopped (${kind})`;
  }
}
