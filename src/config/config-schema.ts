/**
 * The gateway's [vars] (config.ts reads the environment with them): each key's parser, default
 * and bounds, with the doc comment a reader of wrangler.toml needs. Plain parsers rather than a
 * zod schema: the Worker entry runs this at start-up (setting-parsers.ts says why that matters).
 */
import { parseMcpServersVar } from "../mcp/federation/server-config.ts";
import { compileGlob } from "../policy/glob.ts";
import { andThen, decimal, flag, list, oneOf, optionalString, Refusal, type Setting, wholeNumber } from "./setting-parsers.ts";

const DAY_MS = 86_400_000;

const CONFIG_VARS = {
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
  /** First backoff; each next one is RETRY_BACKOFF_FACTOR times longer, plus up to 20% jitter. */
  RETRY_BACKOFF_BASE_MS: wholeNumber(1_500, 0, 60_000),
  /** Growth of each wait over the one before; below 1 the waits would shrink, so it is refused. */
  RETRY_BACKOFF_FACTOR: decimal(1.5, 1, 10),
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
  /** With the AUDIT_ARCHIVE bucket bound, audit records older than this move from D1 to R2 (daily cron). */
  AUDIT_ARCHIVE_AFTER_DAYS: wholeNumber(7, 1, 3_650),
  /** Host or host:port globs that outbound fetches may reach although private (local development). */
  OUTBOUND_ALLOW: list(),
  /** Tools that need a person's approval before they run: comma-separated names and globs. */
  APPROVAL_REQUIRED_FOR: andThen(list(), (patterns) => {
    const bad = patterns.find((p) => !/^[A-Za-z0-9_*?-]{1,64}$/.test(p));
    if (bad === undefined) return patterns;
    return new Refusal(`must be tool names or globs (letters, digits, '_', '-', '*', '?'), got ${JSON.stringify(bad)}`);
  }),
  /** How long a pending approval waits for a decision before it expires (a person must read it). */
  APPROVAL_TTL_SECONDS: wholeNumber(900, 10, 7 * 86_400),
  /** Settled approvals older than this leave the D1 index (listings, id lookup); the daily cron. */
  APPROVAL_RETENTION_DAYS: wholeNumber(30, 1, 3_650),
  /** Webhook deliveries (and their events) older than this are deleted; also the replay window. */
  HOOK_DELIVERY_RETENTION_DAYS: wholeNumber(30, 1, 3_650),
  /** Agent runs finished this long ago are deleted: their Run objects' storage and their D1 rows. */
  RUN_RETENTION_DAYS: wholeNumber(30, 1, 3_650),
  /**
   * Whose files the files toolset sees: one workspace per key, or per key and session. Checked
   * here so a typo stops the load; the tools read the var themselves (tools/lib/workspace/).
   */
  WORKSPACE_SCOPE: andThen(optionalString, (value) => {
    const scope = value?.trim() || "key";
    if (scope === "key" || scope === "session") return scope;
    return new Refusal(`must be 'key' or 'session', got ${JSON.stringify(value)}`);
  }),
  /** Host names /mcp answers to besides loopback (DNS-rebinding guard); unset: `*.workers.dev`. */
  MCP_ALLOWED_HOSTS: andThen(optionalString, (value) => {
    if (value === undefined || value.trim() === "") return undefined;
    const hosts = value
      .split(",")
      .map((host) => host.trim().toLowerCase())
      .filter((host) => host !== "");
    const bad = hosts.find((host) => !/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(host));
    if (bad !== undefined) return new Refusal(`must be comma-separated host names, host:port or *.domain patterns, got ${JSON.stringify(bad)}`);
    return hosts;
  }),
  /** Remote MCP servers from configuration: a JSON array (src/mcp/federation/server-config.ts). */
  MCP_SERVERS: andThen(optionalString, (value) => {
    const parsed = parseMcpServersVar(value);
    return parsed.ok ? parsed.servers : new Refusal(parsed.message);
  }),
  /** How long a remote MCP server's tool list is used before it is fetched again. */
  MCP_TOOLS_TTL_SECONDS: wholeNumber(300, 60, 86_400),
  /** How long an MCP session id stays valid after `initialize` (src/mcp/http/mcp-session-id.ts). */
  MCP_SESSION_TTL_SECONDS: wholeNumber(86_400, 60, 30 * 86_400),
  /** Secret (wrangler secret put): signs MCP session ids; unset, a key derived from ADMIN_TOKEN does. */
  MCP_SESSION_SECRET: andThen(optionalString, (value) =>
    value === undefined || value.length >= 32 ? value : new Refusal("must be at least 32 characters (an HMAC key; openssl rand -hex 32 makes one)"),
  ),
  /**
   * Secrets http_request may send as header values, each bound to the hosts it may go to:
   * `NAME@host-glob` entries (`WEATHER_API_KEY@api.weather.example`). A model names a secret;
   * without this list it could name ADMIN_TOKEN and send it anywhere.
   */
  HTTP_REQUEST_SECRETS: andThen(list(), (entries) => {
    const grants: HttpRequestSecretGrant[] = [];
    for (const entry of entries) {
      const match = /^([A-Za-z_][A-Za-z0-9_]{0,127})@([a-z0-9*?.:[\]-]+)$/i.exec(entry);
      if (match === null) {
        return new Refusal(`must be NAME@host entries (WEATHER_API_KEY@api.weather.example, globs allowed in the host), got ${JSON.stringify(entry)}`);
      }
      const host = (match[2] ?? "").toLowerCase();
      grants.push({ secret: match[1] ?? "", host, matches: compileGlob(host) });
    }
    return grants;
  }),
  /** web_search's provider; unset: the first of Brave, Tavily, SearXNG whose variable is set. */
  WEB_SEARCH_PROVIDER: oneOf(["brave", "tavily", "searxng"]),
  /** Where a signed notification is POSTed when an approval is requested (optional). */
  APPROVAL_NOTIFY_URL: optionalString,
  /** Secret (wrangler secret put): the HMAC key of those notifications. */
  APPROVAL_NOTIFY_SECRET: optionalString,
} satisfies Record<string, Setting<unknown>>;

/** The [vars] as read: each key's value, its default when unset. */
export type ConfigVars = { [K in keyof typeof CONFIG_VARS]: Exclude<ReturnType<(typeof CONFIG_VARS)[K]>, Refusal> };

/**
 * Reads every key of `env` the gateway has a setting for; on any refusal, one `KEY message`
 * line per refused key, in the table's order.
 */
export function parseConfigVars(env: object): { ok: true; vars: ConfigVars } | { ok: false; problems: string[] } {
  const source = env as Record<string, unknown>;
  const vars: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, setting] of Object.entries(CONFIG_VARS) as [string, Setting<unknown>][]) {
    const value = setting(source[key]);
    if (value instanceof Refusal) problems.push(`${key} ${value.message}`);
    else vars[key] = value;
  }
  // Every key of CONFIG_VARS was read above, each with its own parser's type.
  return problems.length === 0 ? { ok: true, vars: vars as ConfigVars } : { ok: false, problems };
}

/** One HTTP_REQUEST_SECRETS entry: the secret, its host glob, and the glob compiled once with the config. */
export interface HttpRequestSecretGrant {
  secret: string;
  host: string;
  /** Whether a lowercase `host` or `host:port` is one the secret may go to. */
  matches: (host: string) => boolean;
}
