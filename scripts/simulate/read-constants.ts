/**
 * The inputs of the model (model.ts) as the code and config set them, read where they are
 * defined, so the simulation follows any change. Constants in modules Node cannot import (the
 * RateLimiter imports `cloudflare:workers`) are read from their source text; a constant that
 * can no longer be found is an error naming it, never a silent default.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { unstable_readConfig } from "wrangler";
import { loadConfig } from "../../src/config/config.ts";
import type { StoreConstants } from "./model.ts";

/** A lease holds about a second of its isolate's traffic: key-leases.ts meters calls per second. */
const LEASE_TRAFFIC_MS = 1_000;

/** The number a pattern's first group captures in `file` (numeric separators allowed). */
function numberInSource(root: string, file: string, pattern: RegExp, what: string): number {
  const match = pattern.exec(readFileSync(join(root, file), "utf8"))?.[1];
  const value = match === undefined ? Number.NaN : Number(match.replaceAll("_", ""));
  if (!Number.isFinite(value)) throw new Error(`simulate: cannot find ${what} in ${file} (${pattern}); update scripts/simulate/read-constants.ts`);
  return value;
}

/** `export const NAME = <number>;` in `file`. */
function exportedNumber(root: string, file: string, name: string): number {
  return numberInSource(root, file, new RegExp(`export const ${name}\\s*=\\s*([\\d_.]+)\\s*;`), name);
}

/** The audit queue consumer's batching, from wrangler.toml. */
function auditConsumer(root: string): { maxBatch: number; maxWaitS: number } {
  const config = unstable_readConfig({ config: join(root, "wrangler.toml") });
  // The declared type loses these entries' types (as in scripts/bench/serve.ts), hence the shapes.
  const producers: { binding: string; queue: string }[] = config.queues.producers ?? [];
  const consumers: { queue: string; max_batch_size?: number; max_batch_timeout?: number }[] = config.queues.consumers ?? [];
  const producer = producers.find((p) => p.binding === "AUDIT_QUEUE");
  const consumer = consumers.find((c) => c.queue === producer?.queue);
  if (consumer?.max_batch_size === undefined || consumer.max_batch_timeout === undefined)
    throw new Error("simulate: wrangler.toml has no consumer with max_batch_size and max_batch_timeout for AUDIT_QUEUE's queue");
  return { maxBatch: consumer.max_batch_size, maxWaitS: consumer.max_batch_timeout };
}

/** Every constant but rowsPerRecord, which is the audit table's design (a flag). */
export function readConstants(root: string): Omit<StoreConstants, "rowsPerRecord"> {
  const consumer = auditConsumer(root);
  // An empty env: the configured defaults (src/config/config-schema.ts).
  const { rateLimit } = loadConfig({} as Env);
  return {
    groupMaxRecords: exportedNumber(root, "src/audit/audit-group-commit.ts", "GROUP_MAX_RECORDS"),
    groupMaxDelayMs: exportedNumber(root, "src/audit/audit-group-commit.ts", "GROUP_MAX_DELAY_MS"),
    consumerMaxBatch: consumer.maxBatch,
    consumerMaxWaitS: consumer.maxWaitS,
    keyLimitPerMinute: rateLimit.perMinute,
    leaseMaxShare: exportedNumber(root, "src/rate-limit/rate-limiter.ts", "LEASE_MAX_SHARE"),
    unleasedShare: exportedNumber(root, "src/rate-limit/rate-limiter.ts", "UNLEASED_SHARE"),
    leaseTrafficMs: LEASE_TRAFFIC_MS,
    checkTtlMs: exportedNumber(root, "src/registry/availability.ts", "CHECK_TTL_MS"),
  };
}
