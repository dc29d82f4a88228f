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
 * The bridges into the context are modules of their own: script-console.ts, script-tool-bridge.ts.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import { FuelMeter } from "./fuel-meter.ts";
import type { QuickJSInstance } from "./quickjs.ts";
import { ScriptConsole } from "./script-console.ts";
import { describeError, errorKind, stopMessage } from "./script-errors.ts";
import { PRELUDE } from "./script-prelude.ts";
import { ScriptToolBridge } from "./script-tool-bridge.ts";
import type { GuestError, ScriptErrorKind, ScriptLimit, ScriptLimits, ScriptRun, ScriptToolCall } from "./script-types.ts";

/**
 * The most promise jobs run per call into QuickJS. The host decides between calls whether to
 * yield, so each call runs as many jobs as the last ones' cost says fit before the yield point:
 * one at a time when each is a big chunk of work (eight `await null` resumptions of 8 ms each
 * in one call would pass the slice), up to this many when they are cheap.
 */
const MAX_JOBS_PER_CALL = 64;

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
  private readonly console: ScriptConsole;
  private readonly tools: ScriptToolBridge;
  private stopped: ScriptErrorKind | undefined;
  /** Why a timeout stopped the run: the clock, or which fuel budget. */
  private limit: ScriptLimit | undefined;
  private readonly runtime: QuickJSRuntime;
  private wake: (() => void) | undefined;

  constructor(
    module: QuickJSWASMModule,
    private readonly meter: FuelMeter,
    private readonly limits: ScriptLimits,
    callTool: ScriptToolCall,
    private readonly signal: AbortSignal,
  ) {
    this.deadlineAt = Date.now() + limits.timeoutMs;
    const runtime = module.newRuntime();
    this.runtime = runtime;
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setInterruptHandler(() => this.shouldInterrupt());
    this.context = runtime.newContext();
    this.console = new ScriptConsole(this.context, limits.maxLogChars);
    this.tools = new ScriptToolBridge(this.context, limits.maxToolCalls, callTool, {
      refuse: () => {
        this.stopped = "tool_call_limit";
        return this.stopMessage("tool_call_limit");
      },
      settled: () => this.wake?.(),
    });
  }

  async start(code: string): Promise<ScriptRun> {
    const prelude = this.context.evalCode(PRELUDE, "toolgate-prelude.js");
    if (prelude.error) return this.failed("exception", describeError(this.context, prelude.error));
    prelude.value.dispose();
    // The script's first line stays line 1 of script.js, so its stack traces point at its own lines.
    const evaluated = this.metered(() => this.context.evalCode(`__toolgate_end((async () => {${code}\n})())`, "script.js"));
    if (evaluated === undefined) return this.timedOut();
    if (evaluated.error) {
      const error = describeError(this.context, evaluated.error);
      if (this.stopped === "timeout") return this.timedOut();
      return this.failed(this.stopped ?? (error.name === "SyntaxError" ? "syntax" : errorKind(error.message)), error);
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
        const error = describeError(this.context, jobs.error);
        if (this.stopped === "timeout") return this.timedOut();
        return this.failed(this.stopped ?? errorKind(error.message), error);
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
        return this.ended(JSON.parse(text) as { ok: boolean; result?: unknown; error?: GuestError });
      }
      if (state.type === "rejected") {
        const error = describeError(this.context, state.error);
        return this.failed(errorKind(error.message), error);
      }
      if (this.runtime.hasPendingJob()) {
        if (this.meter.stretch >= this.limits.yieldFuel) {
          await new Promise((resolve) => setTimeout(resolve, 0));
          this.meter.newStretch();
          if (this.outOfTime()) return this.timedOut();
        }
        continue;
      }
      if (this.tools.inFlight === 0) {
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

  private stopMessage(kind: ScriptErrorKind): string {
    return stopMessage(kind, this.limit, this.limits);
  }

  private ended(end: { ok: boolean; result?: unknown; error?: GuestError }): ScriptRun {
    if (end.ok) return { ok: true, result: end.result, ...this.tally() };
    const error = end.error ?? { name: "Error", message: "the script failed" };
    return this.failed(errorKind(error.message), error);
  }

  private failed(kind: ScriptErrorKind, error: GuestError): ScriptRun {
    const message = kind === "exception" || kind === "syntax" ? `${error.name}: ${error.message}` : error.message;
    const limit = kind === "timeout" ? { limit: this.limit ?? "clock" } : {};
    return { ok: false, error: { kind, message, ...(error.stack === undefined ? {} : { stack: error.stack }), ...limit }, ...this.tally() };
  }

  /** The answer when the sandbox itself failed under the script. */
  broken(error: unknown): ScriptRun {
    // The fuel ran out inside native code: the CPU budget, not a crash.
    if (this.meter.trapped) return this.timedOut();
    const message = error instanceof Error ? error.message : String(error);
    return this.failed(this.stopped ?? errorKind(message), { name: "Error", message: `the sandbox failed: ${message}` });
  }

  private tally(): Pick<ScriptRun, "logs" | "droppedLogChars" | "toolCalls"> {
    return { logs: this.console.logs, droppedLogChars: this.console.droppedChars, toolCalls: this.tools.calls };
  }

  /** Frees the context and runtime; calls still in flight settle into nothing. */
  dispose(): void {
    this.tools.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}
