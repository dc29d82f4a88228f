/**
 * Runs one caller's script in a fresh QuickJS runtime: no I/O but `tools` (the host's nested
 * calls) and `console` (captured, capped), a memory limit, a stack limit, a CPU budget metered
 * in fuel (fuel-meter.ts) and a wall-clock deadline, so whatever the script does (loop,
 * allocate, throw, call without end, one huge native operation) the run ends with a value,
 * never a hung or crashed isolate, and holds the isolate for at most one slice at a time.
 *
 * The script is the body of an async function; `await tools.name(args)` returns a QuickJS
 * promise that the host settles when the nested call finishes, and the host then runs the
 * pending promise jobs, which resumes the script. One runtime, one context, disposed at the end.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import type { NestedCallResult } from "../../src/registry/types.ts";
import { type FuelBudget, type FuelLimit, FuelMeter } from "./fuel-meter.ts";
import type { QuickJSInstance } from "./quickjs.ts";
import { PRELUDE } from "./script-prelude.ts";

export interface ScriptLimits {
  /** Wall-clock budget of the whole run, tool calls included. */
  timeoutMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxToolCalls: number;
  /** Characters of console output kept; the rest is counted and dropped. */
  maxLogChars: number;
  /**
   * CPU, in fuel units: `slice` for one synchronous stretch (workerd's clock does not move
   * while JavaScript runs, so no deadline can end a tight loop), `total` for the whole script.
   */
  fuel: FuelBudget;
  /** Fuel a stretch may use before the host yields to the event loop between promise jobs. */
  yieldFuel: number;
  /** The slice, in milliseconds of CPU, as the stop message tells the model. */
  sliceMs: number;
}

export type ScriptErrorKind = "syntax" | "exception" | "timeout" | "memory" | "stack" | "tool_call_limit" | "stalled";

export interface ScriptRun {
  ok: boolean;
  /** The script's return value (JSON), when it returned. */
  result?: unknown;
  /** `limit`, on a timeout: which budget ran out (the clock, the whole CPU budget, one slice). */
  error?: { kind: ScriptErrorKind; message: string; stack?: string; limit?: ScriptLimit };
  logs: string[];
  /** Console characters dropped past maxLogChars. */
  droppedLogChars: number;
  toolCalls: number;
}

/** Calls a tool for the script; the host's capability (ToolContext.callTool) with the signal bound. */
export type ScriptToolCall = (name: string, args: Record<string, unknown>) => Promise<NestedCallResult>;

/** The budget a timeout ran out of. */
export type ScriptLimit = "clock" | FuelLimit;

/**
 * The most promise jobs run per call into QuickJS. The host decides between calls whether to
 * yield, so each call runs as many jobs as the last ones' cost says fit before the yield point:
 * one at a time when each is a big chunk of work (eight `await null` resumptions of 8 ms each
 * in one call would pass the slice), up to this many when they are cheap.
 */
const MAX_JOBS_PER_CALL = 64;

const INTERRUPTED = /interrupted/i;
const OUT_OF_MEMORY = /out of memory/i;
const STACK_OVERFLOW = /stack overflow|too much recursion|maximum call stack/i;

/**
 * Runs `code` to its end under `limits` on an instance of its own. `sound` is false when the
 * instance must not be reused: the fuel ran out inside wasm (a trap leaves QuickJS's C state
 * mid-operation), or the runtime would not free cleanly (QuickJS aborts when objects outlive
 * their runtime, as a script stopped mid-way can leave them). The run's answer stands either way.
 */
export async function runScript(
  instance: Pick<QuickJSInstance, "module" | "fuel">,
  code: string,
  limits: ScriptLimits,
  callTool: ScriptToolCall,
  signal: AbortSignal,
): Promise<{ run: ScriptRun; sound: boolean }> {
  const meter = new FuelMeter(instance.fuel, limits.fuel);
  const run = new Sandbox(instance.module, meter, limits, callTool, signal);
  let ended: ScriptRun;
  let sound = true;
  try {
    ended = await run.start(code);
  } catch (error) {
    // Our side of the bridge failed, or the wasm trapped: no answer from the script itself.
    sound = false;
    ended = run.broken(error);
  }
  if (meter.trapped) return { run: ended, sound: false };
  try {
    run.dispose();
  } catch {
    sound = false;
  }
  return { run: ended, sound };
}

/** One run's state: its runtime and context, console, calls in flight and why it stopped. */
class Sandbox {
  private readonly context: QuickJSContext;
  private readonly deadlineAt: number;
  private readonly logs: string[] = [];
  private logChars = 0;
  private droppedLogChars = 0;
  private toolCalls = 0;
  private stopped: ScriptErrorKind | undefined;
  /** Why a timeout stopped the run: the clock, or which fuel budget. */
  private limit: ScriptLimit | undefined;
  private readonly runtime: QuickJSRuntime;
  private readonly inFlight = new Set<QuickJSDeferredPromise>();
  private wake: (() => void) | undefined;

  constructor(
    module: QuickJSWASMModule,
    private readonly meter: FuelMeter,
    private readonly limits: ScriptLimits,
    private readonly callTool: ScriptToolCall,
    private readonly signal: AbortSignal,
  ) {
    this.deadlineAt = Date.now() + limits.timeoutMs;
    const runtime = module.newRuntime();
    this.runtime = runtime;
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(() => this.shouldInterrupt());
    this.context = runtime.newContext();
    this.installConsole();
    this.installToolCall();
  }

  async start(code: string): Promise<ScriptRun> {
    const prelude = this.context.evalCode(PRELUDE, "toolgate-prelude.js");
    if (prelude.error) return this.failed("exception", this.describe(prelude.error));
    prelude.value.dispose();
    // The script's first line stays line 1 of script.js, so its stack traces point at its own lines.
    const evaluated = this.metered(() => this.context.evalCode(`__toolgate_end((async () => {${code}\n})())`, "script.js"));
    if (evaluated === undefined) return this.timedOut();
    if (evaluated.error) {
      const error = this.describe(evaluated.error);
      if (this.stopped === "timeout") return this.timedOut();
      return this.failed(this.stopped ?? (error.name === "SyntaxError" ? "syntax" : this.kindOf(error.message)), error);
    }
    const ending = evaluated.value;
    try {
      return await this.drive(ending);
    } finally {
      ending.dispose();
    }
  }

  /**
   * Runs promise jobs until the script's promise settles, waiting for tool calls in between.
   * Jobs run a few at a time; once a stretch has used `yieldFuel`, the host yields to the event
   * loop before the next, so a script that awaits shares the isolate for its whole budget.
   */
  private async drive(ending: QuickJSHandle): Promise<ScriptRun> {
    let jobsPerCall = 1;
    for (;;) {
      const spentBefore = this.meter.total;
      const jobs = this.metered(() => this.runtime.executePendingJobs(jobsPerCall));
      if (jobs === undefined) return this.timedOut();
      if (!jobs.error) {
        const perJob = (this.meter.total - spentBefore) / Math.max(1, jobs.value);
        const fit = Math.floor((this.limits.yieldFuel - this.meter.stretch) / Math.max(1, perJob));
        jobsPerCall = Math.min(MAX_JOBS_PER_CALL, Math.max(1, fit));
      }
      if (jobs.error) {
        const error = this.describe(jobs.error);
        if (this.stopped === "timeout") return this.timedOut();
        return this.failed(this.stopped ?? this.kindOf(error.message), error);
      }
      if (this.stopped === "timeout") return this.timedOut();
      if (this.stopped !== undefined) return this.failed(this.stopped, { name: "Error", message: this.stopMessage(this.stopped) });
      const state = this.context.getPromiseState(ending);
      if (state.type === "fulfilled") {
        const text =
          state.notAPromise === true
            ? undefined
            : state.value.consume((value) => (this.context.typeof(value) === "string" ? this.context.getString(value) : undefined));
        if (text === undefined)
          return this.failed("exception", { name: "Error", message: "the script's end could not be read (did it replace JSON or Promise internals?)" });
        return this.ended(JSON.parse(text) as { ok: boolean; result?: unknown; error?: { name: string; message: string; stack?: string } });
      }
      if (state.type === "rejected") {
        const error = this.describe(state.error);
        return this.failed(this.kindOf(error.message), error);
      }
      if (this.runtime.hasPendingJob()) {
        if (this.meter.stretch >= this.limits.yieldFuel) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          this.meter.newStretch();
          if (this.outOfTime()) return this.timedOut();
        }
        continue;
      }
      if (this.inFlight.size === 0) {
        return this.failed("stalled", {
          name: "Error",
          message: "the script is waiting for a promise that nothing will settle (only tools.* calls can be awaited)",
        });
      }
      const late = await this.nextSettlement();
      this.meter.newStretch();
      if (late === "timeout") {
        this.limit = "clock";
        return this.timedOut();
      }
    }
  }

  /**
   * Calls into QuickJS to run the script, metered: undefined, without entering, when a fuel
   * budget is already spent. A trap (the fuel ran out in native code) is rethrown after the
   * account is settled, for runScript to answer and drop the instance.
   */
  private metered<T>(enter: () => T): T | undefined {
    const exhausted = this.meter.enter();
    if (exhausted !== undefined) {
      this.stopped = "timeout";
      this.limit = exhausted;
      return undefined;
    }
    try {
      return enter();
    } finally {
      this.meter.leave();
      if (this.meter.trapped) {
        this.stopped = "timeout";
        this.limit = this.meter.trapLimit();
      }
    }
  }

  /** True when the clock or the caller ended the run; sets why. */
  private outOfTime(): boolean {
    if (Date.now() < this.deadlineAt && !this.signal.aborted) return false;
    this.stopped = "timeout";
    this.limit = "clock";
    return true;
  }

  private timedOut(): ScriptRun {
    this.stopped = "timeout";
    return this.failed("timeout", { name: "Error", message: this.stopMessage("timeout") });
  }

  /** Resolves when a tool call settles, or with the reason the run must stop first. */
  private nextSettlement(): Promise<ScriptErrorKind | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish("timeout"), Math.max(0, this.deadlineAt - Date.now()));
      const onAbort = () => finish("timeout");
      this.signal.addEventListener("abort", onAbort, { once: true });
      const finish = (reason: ScriptErrorKind | undefined) => {
        clearTimeout(timer);
        this.signal.removeEventListener("abort", onAbort);
        this.wake = undefined;
        resolve(reason);
      };
      this.wake = () => finish(undefined);
      if (this.signal.aborted) finish("timeout");
    });
  }

  private shouldInterrupt(): boolean {
    const exhausted = this.meter.poll();
    if (this.stopped !== undefined) return true;
    if (exhausted !== undefined) {
      this.stopped = "timeout";
      this.limit = exhausted;
    } else this.outOfTime();
    return this.stopped !== undefined;
  }

  private installConsole(): void {
    const consoleHandle = this.context.newObject();
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      const fn = this.context.newFunction(level, (...args) => {
        this.log(level, args.map((arg) => this.printable(arg)).join(" "));
      });
      this.context.setProp(consoleHandle, level, fn);
      fn.dispose();
    }
    this.context.setProp(this.context.global, "console", consoleHandle);
    consoleHandle.dispose();
  }

  private installToolCall(): void {
    const fn = this.context.newFunction("__toolgate_call", (nameHandle, argsHandle) => {
      const name = this.context.getString(nameHandle);
      const args = JSON.parse(this.context.getString(argsHandle)) as unknown;
      const deferred = this.context.newPromise();
      if (this.toolCalls >= this.limits.maxToolCalls) {
        // The run ends here even if the script would catch the refusal and go on calling.
        this.stopped = "tool_call_limit";
        const refusal = this.context.newError({ name: "ToolCallLimit", message: this.stopMessage("tool_call_limit") });
        deferred.reject(refusal);
        refusal.dispose();
        return deferred.handle;
      }
      this.toolCalls += 1;
      this.inFlight.add(deferred);
      const settle = (result: NestedCallResult) => {
        if (!this.inFlight.delete(deferred)) return;
        const value = this.context.newString(JSON.stringify(result));
        deferred.resolve(value);
        value.dispose();
        this.wake?.();
      };
      const argsObject = typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;
      if (argsObject === undefined) {
        settle({
          callId: "",
          status: "error",
          error: {
            error: `tools.${name}() takes one object of arguments, e.g. tools.${name}({ ... })`,
            error_code: "INVALID_ARGUMENTS",
            stage: "parse",
            suggestion: "Pass the arguments as an object.",
            retryable: false,
          },
        });
      } else {
        this.callTool(name, argsObject).then(settle, (error: unknown) => {
          settle({
            callId: "",
            status: "error",
            error: { error: `tools.${name} failed: ${String(error)}`, error_code: "EXECUTION_FAILED", stage: "execute", suggestion: "", retryable: false },
          });
        });
      }
      return deferred.handle;
    });
    this.context.setProp(this.context.global, "__toolgate_call", fn);
    fn.dispose();
  }

  private log(level: string, line: string): void {
    const text = level === "log" || level === "info" ? line : `[${level}] ${line}`;
    const room = this.limits.maxLogChars - this.logChars;
    if (room <= 0) {
      this.droppedLogChars += text.length;
      return;
    }
    const kept = text.length <= room ? text : text.slice(0, room);
    this.logs.push(kept);
    this.logChars += kept.length;
    this.droppedLogChars += text.length - kept.length;
  }

  /** A console argument as text: strings as they are, anything else as QuickJS prints it. */
  private printable(handle: QuickJSHandle): string {
    if (this.context.typeof(handle) === "string") return this.context.getString(handle);
    const dumped: unknown = this.context.dump(handle);
    if (typeof dumped === "string") return dumped;
    return JSON.stringify(dumped) ?? String(dumped);
  }

  private describe(errorHandle: QuickJSHandle): { name: string; message: string; stack?: string } {
    const dumped: unknown = errorHandle.consume((handle) => this.context.dump(handle));
    if (typeof dumped === "object" && dumped !== null && "message" in dumped) {
      const { name, message, stack } = dumped as { name?: unknown; message?: unknown; stack?: unknown };
      return { name: typeof name === "string" ? name : "Error", message: String(message), ...(typeof stack === "string" && stack !== "" ? { stack } : {}) };
    }
    return { name: "Error", message: `the script threw a non-Error value: ${typeof dumped === "string" ? dumped : JSON.stringify(dumped)}` };
  }

  private kindOf(message: string): ScriptErrorKind {
    if (OUT_OF_MEMORY.test(message)) return "memory";
    if (STACK_OVERFLOW.test(message)) return "stack";
    if (INTERRUPTED.test(message)) return "timeout";
    return "exception";
  }

  private stopMessage(kind: ScriptErrorKind): string {
    switch (kind) {
      case "timeout":
        if (this.limit === "slice")
          return `the script computed for more than ${this.limits.sliceMs} ms of CPU without awaiting and was stopped: other requests wait while it runs. Split long work into chunks and \`await null\` between them; the whole script may use up to its timeout_ms (${this.limits.timeoutMs} ms) of CPU that way`;
        if (this.limit === "total") return `the script ran past its ${this.limits.timeoutMs} ms budget of CPU (timeout_ms) and was stopped`;
        return `the script ran past its ${this.limits.timeoutMs} ms budget (timeout_ms, wall-clock, tool calls included) and was stopped`;
      case "tool_call_limit":
        return `the script made more than ${this.limits.maxToolCalls} tool calls; the limit is ${this.limits.maxToolCalls} per script`;
      default:
        return `the script was stopped (${kind})`;
    }
  }

  private ended(end: { ok: boolean; result?: unknown; error?: { name: string; message: string; stack?: string } }): ScriptRun {
    if (end.ok) return { ok: true, result: end.result, ...this.tally() };
    const error = end.error ?? { name: "Error", message: "the script failed" };
    return this.failed(this.kindOf(error.message), error);
  }

  private failed(kind: ScriptErrorKind, error: { name: string; message: string; stack?: string }): ScriptRun {
    const message = kind === "exception" || kind === "syntax" ? `${error.name}: ${error.message}` : error.message;
    const limit = kind === "timeout" ? { limit: this.limit ?? "clock" } : {};
    return { ok: false, error: { kind, message, ...(error.stack === undefined ? {} : { stack: error.stack }), ...limit }, ...this.tally() };
  }

  /** The answer when the sandbox itself failed under the script. */
  broken(error: unknown): ScriptRun {
    // The fuel ran out inside native code: the CPU budget, not a crash.
    if (this.meter.trapped) return this.timedOut();
    const message = error instanceof Error ? error.message : String(error);
    return this.failed(this.stopped ?? this.kindOf(message), { name: "Error", message: `the sandbox failed: ${message}` });
  }

  private tally(): Pick<ScriptRun, "logs" | "droppedLogChars" | "toolCalls"> {
    return { logs: this.logs, droppedLogChars: this.droppedLogChars, toolCalls: this.toolCalls };
  }

  /** Frees the context and runtime; calls still in flight settle into nothing. */
  dispose(): void {
    for (const deferred of this.inFlight) deferred.dispose();
    this.inFlight.clear();
    this.context.dispose();
    this.runtime.dispose();
  }
}
