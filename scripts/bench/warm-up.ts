/**
 * One warm-up of the tool-call path before the first scenario, on top of each arm's own: V8
 * compiles the pipeline's functions only after thousands of calls, and a 0.3 s warm-up per arm
 * is not that many. Measured (2026-12-02): in the first scenario to send calls, core's CPU per
 * request fell round after round (492, 483, 376, 279 us) while the same code measured right
 * after, in the next scenario, held at 200-230 us; the bare route it is compared with has
 * little to compile. The core app shares nearly all the gateway's and the full app's code and
 * writes no audit records, so warming it leaves nothing queued to land in a later measurement.
 */
import type { LoadClient, RequestSpec } from "./load.ts";
import { BARE_CALL_PATH, CORE_PIPELINE, ECHO_CALL_BODY, PIPELINE_HEADER, TOOL_CALLS_PATH } from "./requests.ts";
import type { BenchSettings } from "./scenario.ts";

const call = (path: string, pipeline: string): RequestSpec => ({ method: "POST", path, body: ECHO_CALL_BODY, headers: { [PIPELINE_HEADER]: pipeline } });
/** Alternated, so no arm goes cold while another warms. */
const ARMS = [call(TOOL_CALLS_PATH, CORE_PIPELINE), call(BARE_CALL_PATH, CORE_PIPELINE)];
const PASSES = 3;

/** Sends echo calls through the core app and to the bare route, `3 x warmupMs` in all per arm. */
export async function warmUpCallPath(client: LoadClient, settings: BenchSettings): Promise<void> {
  const durationMs = settings.warmupMs;
  for (let pass = 0; pass < PASSES; pass++) {
    for (const arm of ARMS) await client.round(arm, { concurrency: settings.concurrency, durationMs });
  }
}
