/**
 * Gateway settings: one typed configuration read from wrangler.toml [vars] (strings, as Workers
 * delivers them) with defaults, validated with zod. The Worker validates it when its module
 * loads, so a bad value fails `wrangler dev` and `wrangler deploy` loudly with the key's name;
 * requests re-check it (cached per env) and answer 500 MISCONFIGURED naming the key.
 */
import { z } from "zod";

const wholeNumber = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}` });
        return z.NEVER;
      }
      return n;
    });

const flag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      if (value === "true" || value === "false") return value === "true";
      ctx.addIssue({ code: "custom", message: `must be "true" or "false", got ${JSON.stringify(value)}` });
      return z.NEVER;
    });

const DAY_MS = 86_400_000;

const ConfigSchema = z.object({
  /** Largest request body accepted, in bytes. */
  MAX_BODY_BYTES: wholeNumber(1_048_576, 1, 100 * 1_048_576),
  /** Most tool calls in one batch. */
  MAX_TOOL_CALLS: wholeNumber(64, 1, 1_000),
  /** How long stored oversized results stay readable, in seconds (KV minimum 60). */
  RESULT_TTL_SECONDS: wholeNumber(86_400, 60, 365 * 86_400),
  /** Calls of one batch running at once, unless the request asks otherwise. */
  MAX_PARALLEL_CALLS: wholeNumber(4, 1, 64),
  /** The most a request may ask for with `max_parallel_calls`. */
  MAX_PARALLEL_CALLS_CAP: wholeNumber(16, 1, 256),
  /** A call's deadline when its tool declares no `timeoutMs`. */
  DEFAULT_TIMEOUT_MS: wholeNumber(30_000, 1, DAY_MS),
  /** The whole batch's deadline; no call outlives it. */
  BATCH_TIMEOUT_MS: wholeNumber(120_000, 1, DAY_MS),
  /** Attempts per call for retryable failures (1 disables retries). */
  RETRY_MAX_ATTEMPTS: wholeNumber(3, 1, 10),
  /** First backoff; each next one is 1.5 times longer, plus up to 20% jitter. */
  RETRY_BACKOFF_BASE_MS: wholeNumber(1_500, 0, 60_000),
  /** Retry a tool's own timeouts (a fetch that gave up), never the call's deadline. */
  RETRY_ON_TIMEOUT: flag(true),
  /** Consecutive failures that open a tool's or an upstream host's circuit. */
  BREAKER_FAILURE_THRESHOLD: wholeNumber(5, 1, 1_000),
  /** How long an open circuit refuses calls before one probe may try. */
  BREAKER_COOLDOWN_MS: wholeNumber(30_000, 1, DAY_MS),
  /** Tool calls per minute per API key (a key's own limit overrides it). */
  RATE_LIMIT_PER_MINUTE: wholeNumber(600, 1, 1_000_000),
  /** Calls per minute per API key and tool. */
  RATE_LIMIT_PER_TOOL_PER_MINUTE: wholeNumber(120, 1, 1_000_000),
  /** Audit records older than this are deleted by the daily cron. */
  AUDIT_RETENTION_DAYS: wholeNumber(30, 1, 3_650),
  /** Host names /mcp answers to besides loopback (DNS-rebinding guard); unset: `*.workers.dev`. */
  MCP_ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return undefined;
      const hosts = value.split(",").map((host) => host.trim().toLowerCase()).filter((host) => host !== "");
      const bad = hosts.find((host) => !/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(host));
      if (bad !== undefined) {
        ctx.addIssue({ code: "custom", message: `must be comma-separated host names, host:port or *.domain patterns, got ${JSON.stringify(bad)}` });
        return z.NEVER;
      }
      return hosts;
    }),
});

export interface RetryConfig {
  maxAttempts: number;
  backoffBaseMs: number;
  retryOnTimeout: boolean;
}

export interface GatewayConfig {
  maxBodyBytes: number;
  maxToolCalls: number;
  resultTtlSeconds: number;
  maxParallelCalls: number;
  maxParallelCallsCap: number;
  defaultTimeoutMs: number;
  batchTimeoutMs: number;
  retry: RetryConfig;
  breaker: { failureThreshold: number; cooldownMs: number };
  rateLimit: { perMinute: number; perToolPerMinute: number };
  auditRetentionDays: number;
  /** MCP_ALLOWED_HOSTS; undefined when unset. */
  mcpAllowedHosts: readonly string[] | undefined;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const cache = new WeakMap<object, GatewayConfig>();

/** The validated configuration of this environment; throws ConfigError naming each bad key. */
export function loadConfig(env: Env): GatewayConfig {
  const cached = cache.get(env);
  if (cached !== undefined) return cached;
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ");
    throw new ConfigError(`Invalid toolgate configuration (wrangler.toml [vars]): ${problems}`);
  }
  const v = parsed.data;
  if (v.MAX_PARALLEL_CALLS > v.MAX_PARALLEL_CALLS_CAP) {
    throw new ConfigError(`Invalid toolgate configuration (wrangler.toml [vars]): MAX_PARALLEL_CALLS (${v.MAX_PARALLEL_CALLS}) is above MAX_PARALLEL_CALLS_CAP (${v.MAX_PARALLEL_CALLS_CAP})`);
  }
  const config: GatewayConfig = {
    maxBodyBytes: v.MAX_BODY_BYTES,
    maxToolCalls: v.MAX_TOOL_CALLS,
    resultTtlSeconds: v.RESULT_TTL_SECONDS,
    maxParallelCalls: v.MAX_PARALLEL_CALLS,
    maxParallelCallsCap: v.MAX_PARALLEL_CALLS_CAP,
    defaultTimeoutMs: v.DEFAULT_TIMEOUT_MS,
    batchTimeoutMs: v.BATCH_TIMEOUT_MS,
    retry: { maxAttempts: v.RETRY_MAX_ATTEMPTS, backoffBaseMs: v.RETRY_BACKOFF_BASE_MS, retryOnTimeout: v.RETRY_ON_TIMEOUT },
    breaker: { failureThreshold: v.BREAKER_FAILURE_THRESHOLD, cooldownMs: v.BREAKER_COOLDOWN_MS },
    rateLimit: { perMinute: v.RATE_LIMIT_PER_MINUTE, perToolPerMinute: v.RATE_LIMIT_PER_TOOL_PER_MINUTE },
    auditRetentionDays: v.AUDIT_RETENTION_DAYS,
    mcpAllowedHosts: v.MCP_ALLOWED_HOSTS,
  };
  cache.set(env, config);
  return config;
}
