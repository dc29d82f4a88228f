/**
 * Gateway settings: one typed configuration read from wrangler.toml [vars] (strings, as Workers
 * delivers them) with defaults, each checked by its parser (config-schema.ts). The Worker validates it when its module
 * loads, so a bad value fails `wrangler dev` and `wrangler deploy` loudly with the key's name;
 * requests re-check it (cached per env) and answer 500 MISCONFIGURED naming the key.
 */
import type { McpServerConfig } from "../mcp/federation/server-config.ts";
import { checkOutboundUrl } from "../net/outbound-url.ts";
import { type HttpRequestSecretGrant, parseConfigVars } from "./config-schema.ts";

/** Shortest notification secret accepted: an HMAC key should be at least as long as its output's half. */
const MIN_NOTIFY_SECRET_CHARS = 16;

export interface RetryConfig {
  maxAttempts: number;
  backoffBaseMs: number;
  backoffFactor: number;
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
  /** Whole UTC days older than this are archived to R2 when AUDIT_ARCHIVE is bound (src/audit/archive-audit.ts). */
  auditArchiveAfterDays: number;
  /** src/net/outbound-url.ts: private targets that are allowed anyway. */
  outboundAllow: readonly string[];
  approval: { requiredFor: readonly string[]; ttlSeconds: number; retentionDays: number; notify?: { url: string; secret: string } };
  webhookDeliveryRetentionDays: number;
  /** RUN_RETENTION_DAYS: src/agent/run-retention.ts and the Run object's retention alarm. */
  runRetentionDays: number;
  /** MCP_ALLOWED_HOSTS; undefined when unset. */
  mcpAllowedHosts: readonly string[] | undefined;
  mcpServers: readonly McpServerConfig[];
  mcpToolsTtlSeconds: number;
  /** Signed MCP session ids: how long one lives, and the secret its signing key derives from (none: no sessions). */
  mcpSessions: { ttlSeconds: number; secret: string | undefined };
  /** HTTP_REQUEST_SECRETS: which secret http_request may send to which hosts. */
  httpRequestSecrets: readonly HttpRequestSecretGrant[];
  /** WEB_SEARCH_PROVIDER; undefined when unset. */
  webSearchProvider: "brave" | "tavily" | "searxng" | undefined;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const cache = new WeakMap<object, GatewayConfig>();

/** The notification target, checked now so a private or malformed URL fails the deploy, not the first approval. */
function notifyConfig(url: string | undefined, secret: string | undefined, allow: readonly string[]): { notify?: { url: string; secret: string } } {
  if (url === undefined || url.trim() === "") return {};
  const check = checkOutboundUrl(url.trim(), allow);
  if (!check.ok) throw new ConfigError(`Invalid toolgate configuration (wrangler.toml [vars]): APPROVAL_NOTIFY_URL ${check.reason}`);
  if (secret === undefined || secret.length < MIN_NOTIFY_SECRET_CHARS) {
    throw new ConfigError(
      `Invalid toolgate configuration: APPROVAL_NOTIFY_URL is set, so the secret APPROVAL_NOTIFY_SECRET must be too, at least ${MIN_NOTIFY_SECRET_CHARS} characters (wrangler secret put APPROVAL_NOTIFY_SECRET)`,
    );
  }
  return { notify: { url: check.url.href, secret } };
}

/** The validated configuration of this environment; throws ConfigError naming each bad key. */
export function loadConfig(env: Env): GatewayConfig {
  const cached = cache.get(env);
  if (cached !== undefined) return cached;
  const parsed = parseConfigVars(env);
  if (!parsed.ok) throw new ConfigError(`Invalid toolgate configuration (wrangler.toml [vars]): ${parsed.problems.join("; ")}`);
  const v = parsed.vars;
  if (v.MAX_PARALLEL_CALLS > v.MAX_PARALLEL_CALLS_CAP) {
    throw new ConfigError(
      `Invalid toolgate configuration (wrangler.toml [vars]): MAX_PARALLEL_CALLS (${v.MAX_PARALLEL_CALLS}) is above MAX_PARALLEL_CALLS_CAP (${v.MAX_PARALLEL_CALLS_CAP})`,
    );
  }
  const config: GatewayConfig = {
    maxBodyBytes: v.MAX_BODY_BYTES,
    maxToolCalls: v.MAX_TOOL_CALLS,
    resultTtlSeconds: v.RESULT_TTL_SECONDS,
    maxParallelCalls: v.MAX_PARALLEL_CALLS,
    maxParallelCallsCap: v.MAX_PARALLEL_CALLS_CAP,
    defaultTimeoutMs: v.DEFAULT_TIMEOUT_MS,
    batchTimeoutMs: v.BATCH_TIMEOUT_MS,
    retry: {
      maxAttempts: v.RETRY_MAX_ATTEMPTS,
      backoffBaseMs: v.RETRY_BACKOFF_BASE_MS,
      backoffFactor: v.RETRY_BACKOFF_FACTOR,
      retryOnTimeout: v.RETRY_ON_TIMEOUT,
    },
    breaker: { failureThreshold: v.BREAKER_FAILURE_THRESHOLD, cooldownMs: v.BREAKER_COOLDOWN_MS },
    rateLimit: { perMinute: v.RATE_LIMIT_PER_MINUTE, perToolPerMinute: v.RATE_LIMIT_PER_TOOL_PER_MINUTE },
    auditRetentionDays: v.AUDIT_RETENTION_DAYS,
    auditArchiveAfterDays: v.AUDIT_ARCHIVE_AFTER_DAYS,
    outboundAllow: v.OUTBOUND_ALLOW,
    approval: {
      requiredFor: v.APPROVAL_REQUIRED_FOR,
      ttlSeconds: v.APPROVAL_TTL_SECONDS,
      retentionDays: v.APPROVAL_RETENTION_DAYS,
      ...notifyConfig(v.APPROVAL_NOTIFY_URL, v.APPROVAL_NOTIFY_SECRET, v.OUTBOUND_ALLOW),
    },
    webhookDeliveryRetentionDays: v.HOOK_DELIVERY_RETENTION_DAYS,
    runRetentionDays: v.RUN_RETENTION_DAYS,
    mcpAllowedHosts: v.MCP_ALLOWED_HOSTS,
    mcpServers: v.MCP_SERVERS,
    mcpToolsTtlSeconds: v.MCP_TOOLS_TTL_SECONDS,
    mcpSessions: { ttlSeconds: v.MCP_SESSION_TTL_SECONDS, secret: v.MCP_SESSION_SECRET ?? (env.ADMIN_TOKEN === "" ? undefined : env.ADMIN_TOKEN) },
    httpRequestSecrets: v.HTTP_REQUEST_SECRETS,
    webSearchProvider: v.WEB_SEARCH_PROVIDER,
  };
  cache.set(env, config);
  return config;
}
