/**
 * execute_code's own work never lengthens a script's hold of the isolate: making a QuickJS
 * instance, and freeing the runtime of a script that computed, each run in a turn of the event
 * loop of their own. The worst input "spreading a million-element array" once paid all three in
 * one turn (a new instance, its slice of fuel, then freeing a heap of million-element arrays), and
 * a probe waited 313 ms. workerd's clock stands still during synchronous work, so what is
 * asserted is the order of turns, counted by a timer that re-arms itself, never a duration.
 */
import type { QuickJSRuntime, QuickJSWASMModule } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { createQuickJSPool, instantiateQuickJS } from "../../tools/lib/quickjs.ts";
import { runScript } from "../../tools/lib/run-script.ts";
import { noTools, scriptLimits } from "../support/script-limits.ts";

/** Counts turns of the event loop: a timer that fires once per turn until stopped. */
function countTurns(): { readonly now: number; stop(): void } {
  let turns = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    turns += 1;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return {
    get now() {
      return turns;
    },
    stop() {
      stopped = true;
    },
  };
}

/** Runs `code` on a fresh instance, noting the turn its runtime was made in (the script's first stretch) and the turn it was freed in. */
async function runNotingTurns(code: string): Promise<{ result: unknown; ranAt: number; freedAt: number }> {
  const instance = await instantiateQuickJS();
  const turns = countTurns();
  let ranAt = -1;
  let freedAt = -1;
  // The runtime's own methods, observed and passed through: the sandbox runs exactly as it would.
  const noted = (runtime: QuickJSRuntime): QuickJSRuntime => {
    ranAt = turns.now;
    const dispose = runtime.dispose.bind(runtime);
    runtime.dispose = () => {
      freedAt = turns.now;
      dispose();
    };
    return runtime;
  };
  const module = new Proxy(instance.module, {
    get(target, key, receiver) {
      if (key !== "newRuntime") return Reflect.get(target, key, receiver);
      return (...args: Parameters<QuickJSWASMModule["newRuntime"]>) => noted(target.newRuntime(...args));
    },
  });
  const { run } = await runScript({ module, fuel: instance.fuel }, code, scriptLimits(100), noTools, new AbortController().signal);
  turns.stop();
  return { result: run.ok ? run.result : run.error, ranAt, freedAt };
}

describe("execute_code's host work in turns of its own", () => {
  it("lends a new instance in a later turn than the one that made it", async () => {
    const turns = countTurns();
    let madeAt = -1;
    const pool = createQuickJSPool({
      maxInstances: 1,
      instantiate: async () => {
        const instance = await instantiateQuickJS();
        madeAt = turns.now;
        return instance;
      },
    });
    const lease = await pool.acquire(Date.now() + 10_000, new AbortController().signal);
    const lentAt = turns.now;
    turns.stop();
    expect(lease).toBeDefined();
    expect(lentAt).toBeGreaterThan(madeAt);
  });

  it("frees the runtime of a script that computed past the yield point in a later turn than the script ran in", async () => {
    // Ten spreads of 65,536 elements: past the 2 M-unit yield point, inside the 20 M-unit slice.
    const { result, ranAt, freedAt } = await runNotingTurns(
      "const a = Array(1 << 16).fill(0); let t; for (let i = 0; i < 10; i++) t = [...a]; return t.length;",
    );
    expect(result).toBe(65_536);
    expect(freedAt).toBeGreaterThan(ranAt);
  });

  it("frees the runtime of a trivial script in the turn it ran in, so small scripts pay no extra turn", async () => {
    const { result, ranAt, freedAt } = await runNotingTurns("return 1 + 1;");
    expect(result).toBe(2);
    expect(freedAt).toBe(ranAt);
  });
});
