/**
 * Gateway settings, read from wrangler.toml [vars] (strings, as Workers delivers them) with
 * defaults, validated once per environment. A bad value fails every request loudly with the
 * key's name instead of running with a silently wrong limit.
 */
import { z } from "zod";

const positiveInt = (fallback: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > max) {
        ctx.addIssue({ code: "custom", message: `must be a whole number from 1 to ${max}, got ${JSON.stringify(value)}` });
        return z.NEVER;
      }
      return n;
    });

const ConfigSchema = z.object({
  /** Largest request body accepted, in bytes. */
  MAX_BODY_BYTES: positiveInt(1_048_576, 100 * 1_048_576),
  /** Most tool calls in one batch. */
  MAX_TOOL_CALLS: positiveInt(64, 1_000),
  /** How long stored oversized results stay readable, in seconds (KV minimum 60). */
  RESULT_TTL_SECONDS: positiveInt(86_400, 365 * 86_400),
});

export interface GatewayConfig {
  maxBodyBytes: number;
  maxToolCalls: number;
  resultTtlSeconds: number;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const cache = new WeakMap<object, GatewayConfig>();

/** The validated configuration of this environment; throws ConfigError naming the bad key. */
export function loadConfig(env: Env): GatewayConfig {
  const cached = cache.get(env);
  if (cached !== undefined) return cached;
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ");
    throw new ConfigError(`Invalid toolgate configuration (wrangler.toml [vars]): ${problems}`);
  }
  const config: GatewayConfig = {
    maxBodyBytes: parsed.data.MAX_BODY_BYTES,
    maxToolCalls: parsed.data.MAX_TOOL_CALLS,
    resultTtlSeconds: Math.max(60, parsed.data.RESULT_TTL_SECONDS),
  };
  cache.set(env, config);
  return config;
}
