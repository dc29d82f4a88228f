/// <reference path="../../../worker-configuration.d.ts" />
/**
 * The Worker the hostile suite starts: the shipped entry (src/index.ts), its Durable Object
 * classes and handlers unchanged, plus the worst-inputs route (scripts/hostile/), so the suite
 * can build each tool's worst input inside workerd and send it through the real doors.
 */

import { serveWorstInputs } from "../../../scripts/hostile/worst-inputs-route.ts";
import worker from "../../../src/index.ts";

export * from "../../../src/index.ts";

export default {
  ...worker,
  fetch(request, env, ctx) {
    return serveWorstInputs(request) ?? worker.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
