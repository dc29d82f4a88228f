/**
 * `bench_sleep`: a tool that only waits, for the gateway layer's parallelism figure. Only the
 * bench Worker registers it (not tools/), so the app's catalogue is unchanged. workerd's timers
 * are real (setTimeout sleeps wall time, although Date.now() stands still between I/O), so a
 * batch of sleeps measures how well the batch is scheduled, not any work.
 */
import { z } from "zod";
import type { Registry } from "../../src/registry/registry.ts";

export const SLEEP_TOOL = "bench_sleep";
export const GATEWAY_TOOLSET = "bench-gateway";

/** Waits `ms`; rejects with the signal's reason as soon as the call's deadline or client aborts it. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Registers `bench_sleep`; throws if the registry refuses it, since the figures would be wrong. */
export function registerSleepTool(registry: Registry): void {
  const outcome = registry.register({
    name: SLEEP_TOOL,
    toolset: GATEWAY_TOOLSET,
    schema: z
      .object({ ms: z.number().min(0).max(10_000).describe("How long to wait, in milliseconds.") })
      .describe("Waits for the given time and returns; for the benchmark's parallelism figure."),
    handler: async ({ ms }, ctx) => {
      await sleep(ms, ctx.signal);
      return { slept_ms: ms };
    },
  });
  if (!outcome.ok) throw new Error(`bench: ${SLEEP_TOOL} was refused: ${outcome.reason}`);
}
