/**
 * execute_code: Hermes's programmatic tool calling, on the edge. The model writes JavaScript
 * that calls other tools (`await tools.web_search({...})`), loops and filters over their
 * results, and returns only what matters, so intermediate results never pass through its
 * context. The script runs in QuickJS compiled to WebAssembly (tools/lib/run-script.ts): no
 * network, storage or clock access but `tools`, and every tool call goes through the whole
 * pipeline as its own call (the key's policy, approvals, rate limits, an audit record whose
 * call id is `<this call's id>.<n>`).
 */
import { z } from "zod";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import type { ToolContext } from "../src/registry/types.ts";
import { MAX_INSTANCES, quickJSPool, WASM_MEMORY_BYTES } from "./lib/quickjs.ts";
import { runScript } from "./lib/run-script.ts";
import type { ScriptRun, ScriptToolCall } from "./lib/script-types.ts";

const NAME = "execute_code";
const MAX_TOOL_CALLS = 50;
const MAX_CODE_CHARS = 50_000;
const MAX_LOG_CHARS = 20_000;
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 30_000;
/** QuickJS's own limit refuses single allocations past it; the instance's memory bounds the sum. */
const MEMORY_BYTES = WASM_MEMORY_BYTES;
const STACK_BYTES = 128 * 1024;
/**
 * Fuel units (scripts/meter-quickjs.ts) per millisecond of CPU: what warm code typically spends
 * in workerd on this project's (slow, shared) dev machine, 100,000-260,000 by workload
 * (docs/sandbox.md). workerd's clock does not move while a script computes: fuel is the only
 * measure of its CPU.
 */
const FUEL_PER_MS = 200_000;
/** The longest one synchronous stretch of a script may hold the isolate, in ms of CPU. */
const SLICE_MS = 100;
/** A script that awaits yields to the event loop once a stretch has used this much. */
const YIELD_MS = 10;
/** The documented hold (docs/sandbox.md): one slice, with margin for the host's own work and cold code. */
const HOLDS_ISOLATE_MS = 250;

registry.register({
  name: NAME,
  toolset: "code",
  emoji: "🧮",
  // The script's own budget ends it first, with its console output; this is only a backstop.
  timeoutMs: MAX_TIMEOUT_MS + 5_000,
  schema: () =>
    z.object({
      code: z
        .string()
        .min(1)
        .max(MAX_CODE_CHARS)
        .describe(
          `JavaScript (ES2023), the body of an async function: use await, and return the result (any JSON value). Call a tool with \`await tools.<tool_name>({...arguments})\`: it returns the tool's parsed result, or throws a ToolError with .code (the gateway's error_code, e.g. PERMISSION_DENIED, APPROVAL_REQUIRED), .message and, for approvals, .approval. console.log output is returned too. 1-${MAX_CODE_CHARS} characters.`,
        ),
      timeout_ms: z
        .number()
        .int()
        .min(100)
        .max(MAX_TIMEOUT_MS)
        .default(DEFAULT_TIMEOUT_MS)
        .describe(`Wall-clock budget for the whole script, tool calls included, in milliseconds: 100-${MAX_TIMEOUT_MS}, default ${DEFAULT_TIMEOUT_MS}.`),
    }),
  description: [
    "Runs a JavaScript snippet in a sandbox (QuickJS in WebAssembly) that can call the other tools you have, and returns its result and console output.",
    "Use it to chain many tool calls, loop or filter over results, or compute something exactly, in one step instead of many.",
    `Limits: at most ${MAX_TOOL_CALLS} tool calls per script, ${MEMORY_BYTES / 1024 / 1024} MiB of memory, timeout_ms of wall-clock time and of CPU, ${SLICE_MS} ms of CPU between two awaits (for longer work, \`await null\` between chunks), ${MAX_LOG_CHARS} characters of console output; no network, files, timers or imports except through tools; execute_code cannot call itself; at most ${MAX_INSTANCES} scripts run at once, others wait.`,
    'Result: {"result": <returned value>, "logs": [lines], "tool_calls": n}. A script that throws, loops or runs out of memory ends with EXECUTION_FAILED naming why, with its console output.',
    `Example: {"code": "const r = await tools.echo({ text: 'hi', times: 2 }); console.log(r.text); return r.text.length;"}`,
  ].join(" "),
  example: { code: "const r = await tools.echo({ text: 'hi', times: 2 });\nconsole.log(r.text);\nreturn r.text.length;" },
  worstInputs: [
    {
      name: "a 16 MB indexOf in an endless loop, timeout_ms 100: one native scan per iteration, no interrupt poll inside it",
      args: () => ({ code: "const s = 'x'.repeat(1 << 24); let n = 0; for (;;) n += s.indexOf('y');", timeout_ms: 100 }),
      holdsIsolateMs: HOLDS_ISOLATE_MS,
    },
    {
      name: "spreading a million-element array in an endless loop",
      args: () => ({ code: "const a = Array(1 << 20).fill(0); let t; for (;;) t = [...a];" }),
      holdsIsolateMs: HOLDS_ISOLATE_MS,
    },
    { name: "an empty endless loop", args: () => ({ code: "for (;;) {}" }), holdsIsolateMs: HOLDS_ISOLATE_MS },
    {
      name: "a regex with catastrophic backtracking over 40 characters",
      args: () => ({ code: "return /^(a+)+$/.test('a'.repeat(40) + 'b');" }),
      holdsIsolateMs: HOLDS_ISOLATE_MS,
    },
    {
      name: "an array of 1,000-character strings copied whole on every iteration",
      args: () => ({ code: "let a = []; for (;;) a = [...a, 'x'.repeat(1000)];" }),
      holdsIsolateMs: HOLDS_ISOLATE_MS,
    },
    {
      name: "awaiting between chunks of work until timeout_ms runs out",
      args: () => ({ code: "for (;;) { let s = 0; for (let i = 0; i < 1e5; i++) s += i; await null; }", timeout_ms: 2_000 }),
      holdsIsolateMs: HOLDS_ISOLATE_MS,
    },
  ],
  handler: async ({ code, timeout_ms }, ctx) => {
    // Each running script has an instance of its own (a trap leaves one unusable); past
    // MAX_INSTANCES, scripts wait their turn within their deadline.
    const lease = await quickJSPool.acquire(Math.min(ctx.deadlineAt, Date.now() + timeout_ms), ctx.signal);
    if (lease === undefined) {
      const waitedMs = Math.min(timeout_ms, Math.max(0, ctx.deadlineAt - Date.now()));
      throw new ToolFailureError({ kind: "timeout", name: NAME, elapsedMs: waitedMs, timeoutMs: waitedMs, limit: "call" });
    }
    // Calls still in flight when the script ends (its budget, an uncaught error) are aborted
    // with it, not left running until the call's own deadline.
    const ended = new AbortController();
    const callTool = scriptToolCall(ctx, AbortSignal.any([ctx.signal, ended.signal]));
    // The call's deadline (the tool's or the batch's) may come before timeout_ms. A script that
    // spins keeps the executor's deadline timer from firing, so its own budget must end it there.
    const budgetMs = Math.min(timeout_ms, Math.max(0, ctx.deadlineAt - Date.now()));
    const limits = {
      timeoutMs: budgetMs,
      memoryBytes: MEMORY_BYTES,
      stackBytes: STACK_BYTES,
      maxToolCalls: MAX_TOOL_CALLS,
      maxLogChars: MAX_LOG_CHARS,
      fuel: { slice: SLICE_MS * FUEL_PER_MS, total: budgetMs * FUEL_PER_MS },
      yieldFuel: YIELD_MS * FUEL_PER_MS,
      sliceMs: SLICE_MS,
    };
    let sound = false;
    let run: ScriptRun;
    try {
      ({ run, sound } = await runScript(lease.instance, code, limits, callTool, ctx.signal));
    } finally {
      ended.abort();
      // An instance that trapped or would not dispose is dropped: the next script gets a fresh one.
      lease.release(sound);
    }
    const logs = run.droppedLogChars > 0 ? [...run.logs, `[${run.droppedLogChars} more characters of console output dropped]`] : run.logs;
    if (run.ok) return { result: run.result, logs, tool_calls: run.toolCalls };
    const error = run.error ?? { kind: "exception", message: "the script failed" };
    // Stopped by the call's deadline rather than by its own timeout_ms: the call timed out. A
    // stretch that computed past its slice is the script's own doing, whatever the deadline.
    if (error.kind === "timeout" && error.limit !== "slice" && budgetMs < timeout_ms)
      throw new ToolFailureError({ kind: "timeout", name: NAME, elapsedMs: budgetMs, timeoutMs: budgetMs, limit: "call" });
    const tail = logs.length === 0 ? "" : ` Console output before it ended: ${JSON.stringify(logs.slice(-20))}`;
    throw new ToolFailureError({
      kind: "script_failed",
      name: NAME,
      reason: error.kind,
      detail: `the script ended with ${error.kind}: ${error.message}${whereIn(error.stack)} (after ${run.toolCalls} tool calls).${tail}`,
    });
  },
});

/** The script's `tools.<name>(args)`: the pipeline's nested call, refusing execute_code itself. */
function scriptToolCall(ctx: ToolContext, signal: AbortSignal): ScriptToolCall {
  const callTool = ctx.callTool;
  if (callTool === undefined) {
    return (name) =>
      Promise.resolve({
        callId: "",
        status: "error",
        error: {
          error: `tools.${name}: tool calls are not available to this script (it runs inside another tool call)`,
          error_code: "PERMISSION_DENIED",
          stage: "policy",
          suggestion: "Call the tool directly instead of from a script.",
          retryable: false,
        },
      });
  }
  return (name, args) => {
    if (name === NAME) {
      return Promise.resolve({
        callId: "",
        status: "error",
        error: {
          error: "execute_code cannot call execute_code: a script runs one level deep",
          error_code: "PERMISSION_DENIED",
          stage: "policy",
          suggestion: "Do the work in this script instead of starting another.",
          retryable: false,
        },
      });
    }
    return callTool(name, args, signal);
  };
}

/** The script's own frames of a stack trace (the prelude's are ours, not the model's to fix). */
function whereIn(stack: string | undefined): string {
  const frames = (stack ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.includes("script.js"));
  return frames.length === 0 ? "" : ` at ${frames.slice(0, 3).join(" | ")}`;
}
