/**
 * The script's `console`: every level writes one line into the run's log, kept up to a cap of
 * characters and counted past it, so a script that prints without end cannot grow the answer.
 */
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";

/** The console of one run: installed on its context, read by the host when the run ends. */
export class ScriptConsole {
  readonly logs: string[] = [];
  #chars = 0;
  #dropped = 0;
  readonly #maxChars: number;

  /** Installs `console` (log, info, warn, error, debug) on `context`'s global; keeps `maxChars` of output. */
  constructor(context: QuickJSContext, maxChars: number) {
    this.#maxChars = maxChars;
    const consoleHandle = context.newObject();
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      const fn = context.newFunction(level, (...args) => {
        this.#log(level, args.map((arg) => printable(context, arg)).join(" "));
      });
      context.setProp(consoleHandle, level, fn);
      fn.dispose();
    }
    context.setProp(context.global, "console", consoleHandle);
    consoleHandle.dispose();
  }

  /** Characters of output dropped past the cap. */
  get droppedChars(): number {
    return this.#dropped;
  }

  #log(level: string, line: string): void {
    const text = level === "log" || level === "info" ? line : `[${level}] ${line}`;
    const room = this.#maxChars - this.#chars;
    if (room <= 0) {
      this.#dropped += text.length;
      return;
    }
    const kept = text.length <= room ? text : text.slice(0, room);
    this.logs.push(kept);
    this.#chars += kept.length;
    this.#dropped += text.length - kept.length;
  }
}

/** A console argument as text: strings as they are, anything else as QuickJS prints it. */
function printable(context: QuickJSContext, handle: QuickJSHandle): string {
  if (context.typeof(handle) === "string") return context.getString(handle);
  const dumped: unknown = context.dump(handle);
  if (typeof dumped === "string") return dumped;
  return JSON.stringify(dumped) ?? String(dumped);
}
