/**
 * What an admin configures for one OpenAPI source, in an `apis/<name>.ts` file (build time) or
 * through `POST /v1/openapi-sources` (run time): one zod schema for both, so they refuse the
 * same mistakes with the same messages.
 *
 * Credentials are references to secrets by env var name (`{"secret": "PETSTORE_TOKEN"}`), never
 * values: a committed file or a KV record must not hold a credential in clear.
 */
import { z } from "@hono/zod-openapi";
import { once } from "../bundle/once.ts";
import { identityOptionSchema } from "../identity/identity-option.ts";
import { SECRET_NAME_PATTERN } from "../net/secret-headers.ts";

/** Source names become part of tool names (`<source>__<operation>`), toolsets and URLs. */
export const SOURCE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,23}$/;

/** The default deadline of one call, as http_request's. */
export const DEFAULT_OPENAPI_TIMEOUT_MS = 30_000;

/** How calls authenticate at the API; every credential is a secret's name. Built at first use, not at start-up. */
export const sourceAuthSchema = once(() => {
  const SecretRef = z.strictObject({
    secret: z.string().regex(SECRET_NAME_PATTERN, "must name an environment variable (a Worker secret), such as PETSTORE_TOKEN"),
  });
  return z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("none") }),
    z.strictObject({ type: z.literal("bearer"), token: SecretRef }),
    z.strictObject({
      type: z.literal("api_key"),
      in: z.enum(["header", "query"]),
      name: z.string().min(1).max(100),
      value: SecretRef,
    }),
    z.strictObject({ type: z.literal("basic"), username: SecretRef, password: SecretRef }),
    z.strictObject({
      type: z.literal("oauth2_client_credentials"),
      token_url: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the token endpoint" }),
      client_id: SecretRef,
      client_secret: SecretRef,
      scope: z.string().min(1).max(1000).optional(),
    }),
    /**
     * Each caller's own account at the API (issue 30's `per_user`): the person connects it once
     * through a one-time link (OAuth 2 authorization code with PKCE), and calls carry their token.
     * The endpoints and scopes default to the spec's `securitySchemes` authorization-code flow.
     */
    z.strictObject({
      type: z.literal("per_user"),
      authorization_url: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the authorization endpoint" }).optional(),
      token_url: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the token endpoint" }).optional(),
      /** Not a secret: it appears in every authorization URL a browser opens. */
      client_id: z.string().min(1).max(500),
      client_secret: SecretRef.optional(),
      /** How the client authenticates at the token endpoint; RFC 6749 §2.3.1 makes HTTP basic the one every server takes. */
      client_auth: z.enum(["client_secret_basic", "client_secret_post"]).default("client_secret_basic"),
      /** Space-separated; else every scope the spec's flow lists. */
      scope: z.string().min(1).max(1000).optional(),
    }),
  ]);
});
export type SourceAuth = z.output<ReturnType<typeof sourceAuthSchema>>;
export type PerUserSourceAuth = Extract<SourceAuth, { type: "per_user" }>;

/**
 * Which operations become tools. A pattern is a glob on the operationId, or, with a prefix, on
 * a tag (`tag:pets`) or on the method and path (`path:GET /pets/*`, `path:/pets/*` for any method).
 */
const operationPatterns = () => z.array(z.string().min(1).max(300)).max(500);

/** The header a source's own auth sets, which an identity token must not take over. */
function authHeader(auth: SourceAuth): string | undefined {
  if (auth.type === "none") return undefined;
  if (auth.type === "api_key") return auth.in === "header" ? auth.name.toLowerCase() : undefined;
  return "authorization";
}

/** A source's fields, before the check across them (zod cannot omit a field from a refined object). */
export const openApiSourceFieldsSchema = once(() =>
  z.strictObject({
    name: z.string().regex(SOURCE_NAME_PATTERN, "must be 1-24 lowercase letters, digits or '_', starting with a letter"),
    /**
     * Where the spec comes from: a URL the Worker fetches (run time) or the generator fetches once
     * and commits (build time), or, at build time only, a file path relative to `apis/`.
     */
    spec: z.union([
      z.strictObject({ url: z.url({ protocol: /^https?$/, error: "must be an http or https URL of the spec" }) }),
      z.strictObject({ file: z.string().min(1).max(300) }),
    ]),
    /** Overrides the spec's first server; required when the spec gives none or only a relative one. */
    base_url: z.url({ protocol: /^https?$/, error: "must be an http or https URL" }).optional(),
    auth: sourceAuthSchema().default({ type: "none" }),
    include: operationPatterns().optional(),
    exclude: operationPatterns().default([]),
    /**
     * Per-operation approval, by the same patterns as include: `always` needs a person's approval,
     * `never` does not. Unlisted operations need one unless their method is GET, HEAD or OPTIONS.
     */
    approval: z.record(z.string().min(1).max(300), z.enum(["always", "never"])).default({}),
    timeout_ms: z.number().int().min(100).max(600_000).default(DEFAULT_OPENAPI_TIMEOUT_MS),
    enabled: z.boolean().default(true),
    /**
     * A signed JWT naming the caller on every call (src/identity/, docs/identity.md), for internal
     * APIs that authorise the person rather than the gateway; its audience is the base URL's origin
     * unless set.
     */
    identity: identityOptionSchema().optional(),
  }),
);

/** The check across a source's fields: its identity token may not take over the header its auth sets. */
export const IDENTITY_HEADER_OF_ITS_OWN: [
  (config: { auth: SourceAuth; identity?: { header: string } | undefined }) => boolean,
  { path: string[]; message: string },
] = [
  (config) => config.identity === undefined || config.identity.header.toLowerCase() !== authHeader(config.auth),
  { path: ["identity", "header"], message: "is the header the source's auth sets; give the identity token a header of its own" },
];

export const openApiSourceConfigSchema = once(() => openApiSourceFieldsSchema().refine(...IDENTITY_HEADER_OF_ITS_OWN));

export type OpenApiSourceConfig = z.output<ReturnType<typeof openApiSourceConfigSchema>>;
export type OpenApiSourceInput = z.input<ReturnType<typeof openApiSourceConfigSchema>>;

/** The toolset a source's tools join: one per source, so keys, policy, presets and tool_search apply unchanged. */
export const sourceToolset = (source: string): string => `api-${source}`;
