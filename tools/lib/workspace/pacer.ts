/**
 * Slices a file tool's long synchronous work (STYLE 13). An isolate serves every request on one
 * thread and workerd's clock does not move during synchronous JavaScript, so a loop over a 10 MiB
 * file would hold every other request and no deadline could stop it. A loop counts its work
 * here (about one unit per character it touches) and yields once a slice is spent; after each
 * yield the clock has moved, so the call's deadline and signal are checked there.
 */
import { ToolFailureError } from "../../../src/errors/tool-failure.ts";
import type { ToolContext } from "../../../src/registry/types.ts";

/**
 * Units of work between yields. A unit is about a character scanned by a JIT-compiled loop
 * (tens of ns at worst on a slow machine), so a slice stays in the low milliseconds, well under
 * the 100 ms another request may wait.
 */
export const SLICE_UNITS = 1 << 16;

/** Counts one call's work and yields between slices of it. */
export class Pacer {
  readonly #tool: string;
  readonly #deadlineAt: number;
  readonly #signal: AbortSignal | undefined;
  #spent = 0;

  constructor(tool: string, deadlineAt: number, signal?: AbortSignal) {
    this.#tool = tool;
    this.#deadlineAt = deadlineAt;
    this.#signal = signal;
  }

  /** Counts `units` of work done; true once a slice is spent and the loop should `await pause()`. */
  due(units: number): boolean {
    this.#spent += units;
    return this.#spent >= SLICE_UNITS;
  }

  /** Lets the isolate's other requests run, then stops the call if its deadline passed or its caller left. */
  async pause(): Promise<void> {
    this.#spent = 0;
    await scheduler.wait(0);
    if (this.#signal?.aborted === true || Date.now() >= this.#deadlineAt) {
      throw new ToolFailureError({
        kind: "own_timeout",
        name: this.#tool,
        detail: "the call's deadline passed while it worked through the file; narrow the input (a smaller file, a longer old_string, a narrower path)",
        retryable: false,
      });
    }
  }

  /** Counts `units` and yields when a slice is spent: for loops whose steps are each big. */
  async step(units: number): Promise<void> {
    if (this.due(units)) await this.pause();
  }
}

/** The pacer of one tool call, bound to its deadline and signal. */
export const pacerOf = (ctx: ToolContext): Pacer => new Pacer(ctx.toolName, ctx.deadlineAt, ctx.signal);
