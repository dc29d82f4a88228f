/**
 * The composition root: the per-isolate parts every request shares (the catalog, availability
 * cache, pipeline hooks, breakers, rate-limit leases, audit group commit), built once and handed
 * down. The Worker entry, src/index.ts, is the only production caller. Lower layers never reach
 * up for these: a Durable Object that must run an approved call is handed the function, and a
 * test or the benchmark builds its parts here, replacing what it measures.
 */
import { auditGroupCommit } from "./audit/audit-group-commit.ts";
import { createRecordBatch } from "./audit/record-batch.ts";
import { runBatch } from "./batch/run-batch.ts";
import type { BatchStages } from "./batch/serve-calls.ts";
import { createServeNested } from "./batch/serve-nested.ts";
import { Catalog } from "./catalog/catalog.ts";
import { breakers } from "./execution/circuit-breaker.ts";
import { createExecutor } from "./execution/execute.ts";
import { federation } from "./mcp/federation/federation.ts";
import { openApiSources } from "./openapi-sources/runtime-sources.ts";
import type { PipelineParts } from "./pipeline/types.ts";
import { hooks } from "./plugins/pipeline-hooks.ts";
import { chargeCalls, isolateLeases } from "./rate-limit/charge-calls.ts";
import { availability } from "./registry/availability.ts";
import { registry } from "./registry/registry.ts";
import { observeCalls } from "./tracing/observe-calls.ts";

export interface GatewayParts {
  pipeline: PipelineParts;
  /** The stages around the pipeline: rate-limit charge, batch runner, audit record. */
  batch: BatchStages;
}

/**
 * The isolate's parts. The module-level instances are the isolate's own (an isolate is the unit
 * that shares them); `replaced` swaps some, as the benchmark does to measure each layer.
 */
export function createParts(replaced: { pipeline?: Partial<PipelineParts>; batch?: Partial<BatchStages> } = {}): GatewayParts {
  const batch: BatchStages = {
    runCalls: runBatch,
    chargeCalls: (env, principal, tools, config) => chargeCalls(env, principal, tools, config, isolateLeases),
    recordBatch: createRecordBatch(auditGroupCommit, observeCalls),
    ...replaced.batch,
  };
  return {
    // Calls a handler makes (execute_code) go through the same batch stages as a door's.
    pipeline: {
      catalog: new Catalog(registry, [federation, openApiSources]),
      availability,
      hooks,
      execute: createExecutor(breakers),
      serveNested: createServeNested(batch),
      ...replaced.pipeline,
    },
    batch,
  };
}
