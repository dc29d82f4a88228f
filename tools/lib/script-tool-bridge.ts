/**
 * The host half of the script's `tools.*`: the global `__toolgate_call` the prelude's proxy
 * calls (script-prelude.ts), which starts the nested call and hands the script a QuickJS promise
 * that settles with the call's result. It counts calls against the run's cap and keeps the ones
 * in flight, so the host knows whether anything can still wake the script.
 */
import type { QuickJSContext, QuickJSDeferredPromise } from "quickjs-emscripten-core";
import type { NestedCallResult } from "../../src/registry/types.ts";
import type { ScriptToolCall } from "./script-types.ts";

/** What the bridge tells the run it belongs to. */
export interface ToolBridgeHost {
  /** A call past the cap: ends the run, and returns the message the script's refusal carries. */
  refuse(): string;
  /** A call settled into its promise: the script has jobs to run again. */
  settled(): void;
}

/** The `tools.*` calls of one run: installed on its context, disposed with it. */
export class ScriptToolBridge {
  readonly #inFlight = new Set<QuickJSDeferredPromise>();
  #calls = 0;

  /** Installs `__toolgate_call` on `context`'s global; at most `maxCalls` calls go to `callTool`. */
  constructor(context: QuickJSContext, maxCalls: number, callTool: ScriptToolCall, host: ToolBridgeHost) {
    const fn = context.newFunction("__toolgate_call", (nameHandle, argsHandle) => {
      const name = context.getString(nameHandle);
      const args = JSON.parse(context.getString(argsHandle)) as unknown;
      const deferred = context.newPromise();
      if (this.#calls >= maxCalls) {
        // The run ends here even if the script would catch the refusal and go on calling.
        const refusal = context.newError({ name: "ToolCallLimit", message: host.refuse() });
        deferred.reject(refusal);
        refusal.dispose();
        return deferred.handle;
      }
      this.#calls += 1;
      this.#inFlight.add(deferred);
      const settle = (result: NestedCallResult) => {
        if (!this.#inFlight.delete(deferred)) return;
        const value = context.newString(JSON.stringify(result));
        deferred.resolve(value);
        value.dispose();
        host.settled();
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
        callTool(name, argsObject).then(settle, (error: unknown) => {
          settle({
            callId: "",
            status: "error",
            error: { error: `tools.${name} failed: ${String(error)}`, error_code: "EXECUTION_FAILED", stage: "execute", suggestion: "", retryable: false },
          });
        });
      }
      return deferred.handle;
    });
    context.setProp(context.global, "__toolgate_call", fn);
    fn.dispose();
  }

  /** Calls started, refusals not counted. */
  get calls(): number {
    return this.#calls;
  }

  /** Calls started and not yet settled. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Frees the promises of calls still in flight: they settle into nothing. Before the context is freed. */
  dispose(): void {
    for (const deferred of this.#inFlight) deferred.dispose();
    this.#inFlight.clear();
  }
}
