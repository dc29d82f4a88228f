import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";

const withVars = (vars: Record<string, string>) => ({ ...env, ...vars }) as Env;

describe("configuration", () => {
  it("reads wrangler.toml vars with defaults for the rest", () => {
    expect(loadConfig(env)).toEqual({
      maxBodyBytes: 1_048_576,
      maxToolCalls: 64,
      resultTtlSeconds: 86_400,
      maxParallelCalls: 4,
      maxParallelCallsCap: 16,
      defaultTimeoutMs: 30_000,
      batchTimeoutMs: 120_000,
      retry: { maxAttempts: 3, backoffBaseMs: 1_500, backoffFactor: 1.5, retryOnTimeout: true },
      breaker: { failureThreshold: 5, cooldownMs: 30_000 },
      rateLimit: { perMinute: 600, perToolPerMinute: 120 },
      auditRetentionDays: 30,
      auditArchiveAfterDays: 7,
      outboundAllow: [],
      approval: { requiredFor: [], ttlSeconds: 900, retentionDays: 30 },
      webhookDeliveryRetentionDays: 30,
      runRetentionDays: 30,
      mcpAllowedHosts: undefined,
      mcpServers: [],
      mcpToolsTtlSeconds: 300,
      mcpSessions: { ttlSeconds: 86_400, secret: TEST_ADMIN_TOKEN },
      httpRequestSecrets: [],
      webSearchProvider: undefined,
    });
  });

  it("reads RUN_RETENTION_DAYS and refuses one below a day, naming it", () => {
    expect(loadConfig(withVars({ RUN_RETENTION_DAYS: "7" })).runRetentionDays).toBe(7);
    expect(() => loadConfig(withVars({ RUN_RETENTION_DAYS: "0" }))).toThrow(/RUN_RETENTION_DAYS must be a whole number from 1 to 3650, got "0"/);
    expect(() => loadConfig(withVars({ RUN_RETENTION_DAYS: "a month" }))).toThrow(ConfigError);
  });

  it("reads HTTP_REQUEST_SECRETS as secret-to-host grants and refuses an entry without a host", () => {
    const grants = loadConfig(withVars({ HTTP_REQUEST_SECRETS: " WEATHER_KEY@api.weather.example, GH@*.github.com " })).httpRequestSecrets;
    expect(grants.map(({ secret, host }) => ({ secret, host }))).toEqual([
      { secret: "WEATHER_KEY", host: "api.weather.example" },
      { secret: "GH", host: "*.github.com" },
    ]);
    // Each host glob is compiled with the config, once per isolate, not per header of every call.
    expect(grants.map((grant) => [grant.matches("api.github.com"), grant.matches("api.weather.example")])).toEqual([
      [false, true],
      [true, false],
    ]);
    expect(() => loadConfig(withVars({ HTTP_REQUEST_SECRETS: "ADMIN_TOKEN" }))).toThrow(/HTTP_REQUEST_SECRETS must be NAME@host entries/);
  });

  it("signs MCP session ids with MCP_SESSION_SECRET when set, and refuses a short one", () => {
    const secret = "s".repeat(32);
    expect(loadConfig(withVars({ MCP_SESSION_SECRET: secret, MCP_SESSION_TTL_SECONDS: "600" })).mcpSessions).toEqual({ ttlSeconds: 600, secret });
    expect(() => loadConfig(withVars({ MCP_SESSION_SECRET: "short" }))).toThrow(/MCP_SESSION_SECRET must be at least 32 characters/);
  });

  it("reads WEB_SEARCH_PROVIDER as one of the known providers", () => {
    expect(loadConfig(withVars({ WEB_SEARCH_PROVIDER: "tavily" })).webSearchProvider).toBe("tavily");
    expect(() => loadConfig(withVars({ WEB_SEARCH_PROVIDER: "bing" }))).toThrow(/WEB_SEARCH_PROVIDER/);
  });

  it("reads the approval patterns as a trimmed list, the approval TTL and the index's retention", () => {
    expect(
      loadConfig(withVars({ APPROVAL_REQUIRED_FOR: " http_request, mcp__*__delete_* ,", APPROVAL_TTL_SECONDS: "60", APPROVAL_RETENTION_DAYS: "7" })).approval,
    ).toEqual({
      requiredFor: ["http_request", "mcp__*__delete_*"],
      ttlSeconds: 60,
      retentionDays: 7,
    });
  });

  it("takes overrides from vars", () => {
    expect(
      loadConfig(withVars({ MAX_PARALLEL_CALLS: "6", RETRY_ON_TIMEOUT: "false", RETRY_BACKOFF_FACTOR: "2.5", BREAKER_COOLDOWN_MS: "5000" })),
    ).toMatchObject({
      maxParallelCalls: 6,
      retry: { retryOnTimeout: false, backoffFactor: 2.5 },
      breaker: { cooldownMs: 5_000 },
    });
  });

  it("reads OUTBOUND_ALLOW as a trimmed list", () => {
    expect(loadConfig(withVars({ OUTBOUND_ALLOW: " 127.0.0.1:9240, ,*.test " })).outboundAllow).toEqual(["127.0.0.1:9240", "*.test"]);
  });

  it("reads MCP_ALLOWED_HOSTS as lower-cased host patterns, undefined when unset", () => {
    expect(loadConfig(withVars({ MCP_ALLOWED_HOSTS: " GW.example.com, *.corp.example ,api.example.org:8443" })).mcpAllowedHosts).toEqual([
      "gw.example.com",
      "*.corp.example",
      "api.example.org:8443",
    ]);
    expect(loadConfig(withVars({})).mcpAllowedHosts).toBeUndefined();
  });

  it.each([
    ["MCP_ALLOWED_HOSTS", "https://gw.example.com"],
    ["MAX_PARALLEL_CALLS", "four"],
    ["DEFAULT_TIMEOUT_MS", "-1"],
    ["RETRY_MAX_ATTEMPTS", "2.5"],
    ["RETRY_ON_TIMEOUT", "yes"],
    ["RETRY_BACKOFF_FACTOR", "0.5"],
    ["RETRY_BACKOFF_FACTOR", "fast"],
    ["RESULT_TTL_SECONDS", "30"],
    ["APPROVAL_TTL_SECONDS", "5"],
    ["APPROVAL_REQUIRED_FOR", "http request"],
    ["WORKSPACE_SCOPE", "per-user"],
  ])("fails loudly on %s=%j, naming the key", (key, value) => {
    expect(() => loadConfig(withVars({ [key]: value }))).toThrow(ConfigError);
    expect(() => loadConfig(withVars({ [key]: value }))).toThrow(new RegExp(`${key} must be`));
  });

  it("says which growth factors it accepts and which value it got", () => {
    expect(() => loadConfig(withVars({ RETRY_BACKOFF_FACTOR: "0.5" }))).toThrow('RETRY_BACKOFF_FACTOR must be a number from 1 to 10, got "0.5"');
  });

  it("names the approval pattern it refuses", () => {
    expect(() => loadConfig(withVars({ APPROVAL_REQUIRED_FOR: "echo, http request" }))).toThrow(/APPROVAL_REQUIRED_FOR must be .*got "http request"/);
  });

  it("checks the approval notification target at load: a public URL and a secret, or nothing", () => {
    const secret = "0123456789abcdef";
    expect(loadConfig(withVars({ APPROVAL_NOTIFY_URL: "https://hooks.example.com/a", APPROVAL_NOTIFY_SECRET: secret })).approval.notify).toEqual({
      url: "https://hooks.example.com/a",
      secret,
    });
    expect(() => loadConfig(withVars({ APPROVAL_NOTIFY_URL: "http://127.0.0.1:9/a", APPROVAL_NOTIFY_SECRET: secret }))).toThrow(
      /APPROVAL_NOTIFY_URL .*OUTBOUND_ALLOW/,
    );
    expect(() => loadConfig(withVars({ APPROVAL_NOTIFY_URL: "https://hooks.example.com/a" }))).toThrow(/APPROVAL_NOTIFY_SECRET must be/);
  });

  it("refuses a var that is not a string, naming the type it got, and lists every refused key", () => {
    // A [vars] value in wrangler.toml may be a TOML number, which Workers delivers as a number.
    const vars: Record<string, unknown> = { MAX_BODY_BYTES: 5, RETRY_ON_TIMEOUT: "yes", WEB_SEARCH_PROVIDER: "bing" };
    expect(() => loadConfig({ ...env, ...vars } as Env)).toThrow(
      'MAX_BODY_BYTES Invalid input: expected string, received number; RETRY_ON_TIMEOUT must be "true" or "false", got "yes"; WEB_SEARCH_PROVIDER Invalid option: expected one of "brave"|"tavily"|"searxng"',
    );
  });

  it("refuses a default parallelism above the cap", () => {
    expect(() => loadConfig(withVars({ MAX_PARALLEL_CALLS: "20", MAX_PARALLEL_CALLS_CAP: "8" }))).toThrow(
      /MAX_PARALLEL_CALLS \(20\) is above MAX_PARALLEL_CALLS_CAP \(8\)/,
    );
  });
});
