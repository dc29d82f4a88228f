/**
 * The composition root: the per-isolate parts every request shares, built once and handed
 * down (the Worker entry, src/index.ts, is the only production caller). Lower layers never reach
 * up for these: a Durable Object that must run an approved call is handed the function, and a
 * test or the benchmark builds its own parts instead of resetting globals.
 */
import { REAL_STAGES, type BatchStages } from "./batch/serve-calls.ts";
import { Catalog } from "./catalog/catalog.ts";
import { execute } from "./execution/execute.ts";
import { federation } from "./mcp/federation/federation.ts";
import type { PipelineParts } from "./pipeline/types.ts";
import { hooks } from "./plugins/pipeline-hooks.ts";
import { availability } from "./registry/availability.ts";
import { registry } from "./registry/registry.ts";

export interface GatewayParts {
  pipeline: PipelineParts;
  /** The stages around the pipeline: rate-limit charge, batch runner, audit record. */
  batch: BatchStages;
}

/** The isolate's parts; `replaced` swaps some (the benchmark measures what each layer costs). */
export function createParts(replaced: { pipeline?: Partial<PipelineParts>; batch?: Partial<BatchStages> } = {}): GatewayParts {
  return {
    pipeline: { catalog: new Catalog(registry, federation), availability, hooks, execute, ...replaced.pipeline },
    batch: { ...REAL_STAGES, ...replaced.batch },
  };
}
