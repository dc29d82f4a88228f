/**
 * One OpenAPI operation as a registry entry, for build-time (apis/) and runtime sources alike.
 * The model sees the operation's own input schema; the pipeline validates arguments against it
 * (zod's importer, as for remote MCP tools), and the handler checks its patterns on re2js before
 * anything is sent, so toolgate never sends a request the spec refuses.
 *
 * A call goes through `ctx.fetch` (the deadline, the host's breaker, 429/502/503/504 turned into
 * retryable failures with their Retry-After) behind the SSRF guard, at the first URL and at every
 * redirect. Only idempotent methods are retried (RFC 9110 §9.2.2); only GET and HEAD follow
 * redirects, because a redirected POST would reach a URL nobody approved. Credentials go only to
 * the API's own origin: a redirect elsewhere is followed without them.
 *
 * Approval: an operation that is not GET, HEAD or OPTIONS waits for a person by default; the
 * source's `approval` patterns say otherwise per operation (`always` wins over `never`).
 */
import { z } from "zod";
import { loadConfig } from "../config/config.ts";
import { ToolFailureError } from "../errors/tool-failure.ts";
import { callIdentityHeaders } from "../identity/call-identity.ts";
import { IDENTITY_KEY_SECRET } from "../identity/identity-option.ts";
import { modelSchema, validatorFor } from "../mcp/federation/json-schema-validator.ts";
import { checkOutboundUrl, fetchOutbound, OutboundUrlError } from "../net/outbound-url.ts";
import type { ToolContext, ToolSpec } from "../registry/types.ts";
import { errorFailure, successResult } from "./api-response.ts";
import { buildRequest } from "./build-request.ts";
import { patternIssues } from "./check-patterns.ts";
import { type HttpMethod, IDEMPOTENT_METHODS, type OpenApiOperation } from "./operation.ts";
import { compileOperationPattern } from "./operation-pattern.ts";
import { authFor, authSecretNames, oauthCacheKey, oauthTokens, type TokenCache } from "./source-auth.ts";
import { type OpenApiSourceConfig, sourceToolset } from "./source-config.ts";
import { dropSourceConnector, ownAuthorization, renewAfter401, sourceConnectLink, sourceUserAuth } from "./source-connection.ts";
import { resolveUserOAuth, type UserOAuthEndpoints } from "./user-oauth.ts";
import { worstInputsOf } from "./worst-arguments.ts";

/** Methods that change nothing (RFC 9110 §9.2.1) and so need no approval unless the source says so. */
const SAFE_METHODS: ReadonlySet<HttpMethod> = new Set(["get", "head", "options"]);
/** The scheme of a connection's Authorization header (connection-auth.ts). */
const BEARER = "Bearer ";
/** Methods that follow redirects: the request is the same wherever it lands. */
const FOLLOWING_METHODS: ReadonlySet<HttpMethod> = new Set(["get", "head"]);

export interface OpenApiToolOptions {
  /** The base URL calls go to: the source's `base_url`, else the spec's first absolute server. */
  baseUrl: string;
  /** OAuth tokens kept in this isolate; the module's own by default (tests pass one of their own). */
  tokens?: TokenCache;
  /** A `per_user` source's connection endpoints as its import resolved them; else from its configuration alone (build time). */
  userOAuth?: UserOAuthEndpoints;
}

/** Whether a person must approve calls of `operation`, by the source's patterns, else by its method. */
export function needsApproval(config: Pick<OpenApiSourceConfig, "approval">, operation: OpenApiOperation): boolean {
  let verdict: boolean | undefined;
  for (const [pattern, decision] of Object.entries(config.approval)) {
    if (!compileOperationPattern(pattern)(operation)) continue;
    if (decision === "always") return true;
    verdict = false;
  }
  return verdict ?? !SAFE_METHODS.has(operation.method);
}

/**
 * The spec to register for one operation of a source.
 *
 * @example
 * ```ts
 * for (const operation of converted.operations) registry.register(openApiToolSpec(config, operation, { baseUrl }));
 * ```
 */
export function openApiToolSpec(config: OpenApiSourceConfig, operation: OpenApiOperation, options: OpenApiToolOptions): ToolSpec {
  const { baseUrl, tokens = oauthTokens } = options;
  const label = `${operation.method.toUpperCase()} ${operation.path}`;
  const resource = `openapi:${config.name}`;
  const safe = SAFE_METHODS.has(operation.method);
  const origin = new URL(baseUrl).origin;
  const { auth: sourceAuth } = config;
  const perUser = sourceAuth.type === "per_user" ? perUserLink(config.name, sourceAuth, options.userOAuth, baseUrl) : dropSourceConnector(config.name);
  const disabled = config.enabled ? undefined : `source '${config.name}' is disabled`;
  const gate = disabled ?? (perUser?.ok === false ? perUser.reason : undefined);
  return {
    name: operation.name,
    toolset: sourceToolset(config.name),
    // Built at the first call (the registry keeps it), not at registration: zod's importer costs
    // ~0.1 ms a schema, and a source of 1,000 operations registers at every isolate start.
    schema: () => {
      const { schema, unsupported } = validatorFor(operation.inputSchema);
      if (unsupported === undefined) return schema;
      // No check means no call: toolgate sends no request the spec may refuse.
      return z.unknown().refine(() => false, `the operation's input schema cannot be checked before sending (${unsupported}); this tool cannot be called`);
    },
    parameters: modelSchema(operation.inputSchema),
    description: operation.description.trim() === "" ? `${label} on the ${config.name} API.` : operation.description,
    // A missing secret makes the tools unavailable rather than failing every call with a 401.
    requiresEnv: config.identity === undefined ? authSecretNames(config.auth) : [...authSecretNames(config.auth), IDENTITY_KEY_SECRET],
    timeoutMs: config.timeout_ms,
    // A call that may have written is never replayed: only idempotent methods are retried.
    ...(IDEMPOTENT_METHODS.has(operation.method) ? {} : { retry: { maxAttempts: 1 } }),
    risky: needsApproval(config, operation),
    ...(operation.method === "get" || operation.method === "head" ? { readOnly: true } : {}),
    // Calls of one source in a batch: reads run side by side, a write is ordered against the rest.
    ...(safe ? { reads: [resource] } : { writes: [resource] }),
    ...(gate === undefined ? {} : { gate: () => gate }),
    ...(operation.example === undefined ? {} : { example: operation.example }),
    worstInputs: worstInputsOf(operation.example),
    handler: async function callOperation(input: unknown, ctx: ToolContext) {
      // The pipeline validated `input` against the operation's object schema.
      const args = input as Record<string, unknown>;
      const invalid = (issues: { path: string; message: string }[]) => new ToolFailureError({ kind: "invalid_arguments", name: ctx.toolName, issues });
      const broken = await patternIssues(operation.inputSchema, args);
      if (broken.length > 0) throw invalid(broken);
      const built = buildRequest(operation, args, baseUrl);
      if (!built.ok) throw invalid(built.issues);
      const allow = loadConfig(ctx.env).outboundAllow;
      const first = checkOutboundUrl(built.request.url, allow);
      if (!first.ok)
        throw new ToolFailureError({ kind: "unavailable", name: ctx.toolName, reason: `source '${config.name}' points at a refused address: ${first.reason}` });
      const auth = await authFor(config.name, config.auth, ctx, allow, tokens);
      const link = perUser?.ok === true ? perUser.link : undefined;
      // The caller's own connection, looked up before anything is sent: CONNECTION_REQUIRED ends the call here.
      const own = link === undefined ? undefined : await sourceUserAuth(config.name, ctx, link);
      if (own !== undefined && link !== undefined) {
        auth.headers.authorization = await ownAuthorization(config.name, own, ctx, link);
        // Scrubbed from what the API echoes, like a deployment secret.
        auth.secrets.push(auth.headers.authorization.slice(BEARER.length));
      }
      const identity = await callIdentityHeaders(config.identity, ctx, origin, `source '${config.name}'`);
      if (identity !== undefined) {
        Object.assign(auth.headers, identity);
        // Scrubbed from what the API echoes like any credential: the token is replayable until it expires.
        auth.secrets.push(...Object.values(identity));
      }
      const credential = own !== undefined ? "own" : config.auth.type !== "none" ? "shared" : identity === undefined ? undefined : "identity";
      if (credential !== undefined) ctx.reportCredential(credential);
      const url = auth.query.length === 0 ? first.url.href : `${first.url.href}${first.url.search === "" ? "?" : "&"}${auth.query.join("&")}`;
      const { headers, ...request } = built.request;
      const headersFor = (target: string): Record<string, string> => (new URL(target).origin === origin ? { ...headers, ...auth.headers } : headers);
      const send = async (): Promise<Response> => {
        try {
          if (FOLLOWING_METHODS.has(operation.method)) {
            return await fetchOutbound(url, request, allow, (target, init) => ctx.fetch(target, { ...init, headers: headersFor(target) }));
          }
          return await ctx.fetch(url, { ...request, headers: headersFor(url), redirect: "manual" });
        } catch (error) {
          if (!(error instanceof OutboundUrlError)) throw error;
          throw new ToolFailureError({
            kind: "handler_threw",
            name: ctx.toolName,
            detail: `${label} was not followed to the end: ${error.message}. Redirects to private, loopback or link-local addresses are refused.`,
            retryable: false,
          });
        }
      };
      let response = await send();
      if (response.status === 401 && own !== undefined && link !== undefined) {
        await response.body?.cancel();
        auth.headers.authorization = await renewAfter401(config.name, own, ctx, link);
        auth.secrets.push(auth.headers.authorization.slice(BEARER.length));
        response = await send();
      }
      if (response.status === 401 && config.auth.type === "oauth2_client_credentials") tokens.drop(oauthCacheKey(config.name, config.auth, ctx.env));
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const location = response.headers.get("location") ?? "nowhere";
        return `HTTP ${response.status}: the API redirected this ${request.method} to ${location}; it was not followed, since only GET and HEAD follow redirects.`;
      }
      if (response.status >= 400) throw new ToolFailureError(await errorFailure(response, ctx.toolName, label, auth.secrets));
      return successResult(response, request.method, auth.secrets);
    },
  };
}

/** A `per_user` source's connect-link maker, or why its tools cannot be called (no endpoints known). */
function perUserLink(
  source: string,
  auth: Extract<OpenApiSourceConfig["auth"], { type: "per_user" }>,
  resolved: UserOAuthEndpoints | undefined,
  baseUrl: string,
): { ok: true; link: ReturnType<typeof sourceConnectLink> } | { ok: false; reason: string } {
  const endpoints = resolved === undefined ? resolveUserOAuth(auth, undefined, baseUrl) : { ok: true as const, endpoints: resolved };
  if (!endpoints.ok) return { ok: false, reason: `source '${source}': ${endpoints.reason}` };
  return { ok: true, link: sourceConnectLink(source, auth, endpoints.endpoints) };
}
