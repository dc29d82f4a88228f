/**
 * Who is calling: the API key a request authenticated with (or the bootstrap admin token).
 * Routes read it from the Hono context (`c.get("principal")`) and put it in the request's scope
 * (src/pipeline/request-scope.ts), where the batch layer charges its rate limits.
 */

export const ROLES = ["agent", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a key may do beyond its role (migrations/0013_key_scopes.sql). `metrics`: read GET /metrics,
 * so a Prometheus scraper can hold a key that calls no tool and manages nothing.
 */
export const KEY_SCOPES = ["metrics"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** whitelist: only the listed tools and patterns; deny: everything but them. */
export interface ToolPolicy {
  mode: "whitelist" | "deny";
  /** Tool names or globs (`*` any run of characters, `?` one), e.g. `mcp__github__*`. */
  patterns: readonly string[];
}

export interface Principal {
  /** The key's id, or `admin-token` for the bootstrap token. */
  keyId: string;
  name: string;
  role: Role;
  /** Toolsets the key may use; null means every toolset. */
  toolsets: readonly string[] | null;
  policy: ToolPolicy;
  /** Calls per minute across all tools, overriding RATE_LIMIT_PER_MINUTE; null for the default. */
  rateLimitPerMinute: number | null;
  /** Scopes beyond the role; an admin needs none. */
  scopes: readonly KeyScope[];
}
