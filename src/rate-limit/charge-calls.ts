/**
 * Charges a batch's calls against the API key's rate limits: a per-key bucket and a
 * per-key-and-tool bucket, both per minute, held by the key's RateLimiter object. Calls are
 * paid from this isolate's leases of those buckets where it has tokens, and otherwise in one
 * round trip to the object for the batch (lease-client.ts).
 *
 * If the limiter cannot be reached the calls go ahead (logged): a limiter outage should not take
 * every tool down with it, and the audit log still records every call.
 */
import type { Principal } from "../auth/principal.ts";
import type { GatewayConfig } from "../config/config.ts";
import type { ToolFailure } from "../errors/tool-failure.ts";
import { LeaseClient } from "./lease-client.ts";
import type { BucketRequest } from "./rate-limiter.ts";

const MINUTE_MS = 60_000;

/** The bucket names of docs/storage.md: `key` and `tool:<name>` inside the key's object. */
export const KEY_BUCKET = "key";
export const toolBucket = (tool: string): string => `tool:${tool}`;

/** This isolate's leases, shared by every request it serves (the composition root hands them in). */
export const isolateLeases = new LeaseClient();

/**
 * For each tool name (undefined: a call that will not run, so it is not charged), undefined when
 * it may run or the RATE_LIMITED failure when it may not.
 */
export async function chargeCalls(
  env: Env,
  principal: Principal,
  tools: readonly (string | undefined)[],
  config: GatewayConfig,
  leases: LeaseClient = isolateLeases,
): Promise<(ToolFailure | undefined)[]> {
  // Plain loops, not flatMap/fill/map chains: this runs on every call a key makes, and those
  // showed in the full app's profile.
  const verdicts: (ToolFailure | undefined)[] = [];
  const charged: { tool: string; i: number }[] = [];
  const requests: BucketRequest[][] = [];
  const perKey = principal.rateLimitPerMinute ?? config.rateLimit.perMinute;
  for (let i = 0; i < tools.length; i++) {
    verdicts.push(undefined);
    const tool = tools[i];
    if (tool === undefined) continue;
    charged.push({ tool, i });
    requests.push([
      { bucket: KEY_BUCKET, limit: perKey, windowMs: MINUTE_MS },
      { bucket: toolBucket(tool), limit: config.rateLimit.perToolPerMinute, windowMs: MINUTE_MS },
    ]);
  }
  if (charged.length === 0) return verdicts;
  try {
    const limiter = () => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(principal.keyId));
    const results = await leases.charge(principal.keyId, limiter, requests);
    results.forEach((verdict, n) => {
      const call = charged[n];
      if (call === undefined || verdict.allowed) return;
      verdicts[call.i] = {
        kind: "rate_limited",
        name: call.tool,
        scope: verdict.bucket === KEY_BUCKET ? "key" : "tool",
        limit: verdict.limit,
        retryAfterMs: verdict.retryAfterMs,
      };
    });
  } catch (error) {
    console.error(`rate limiter unreachable for key ${principal.keyId}; letting the calls through: ${String(error)}`);
  }
  return verdicts;
}
