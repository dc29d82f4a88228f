// Secrets are not in wrangler.toml, so `wrangler types` cannot see them. Set each with
// `wrangler secret put NAME`; for local runs they come from .dev.vars.
interface ToolgateSecrets {
  /** The bootstrap admin token (scripts/dev-setup.ts writes one into .dev.vars locally). */
  ADMIN_TOKEN?: string;
  /** Used by the github_repo tool; unset, the tool is hidden. */
  GITHUB_TOKEN?: string;
  /** Shared secrets of the shipped webhooks (webhooks/); unset, every delivery to that webhook is refused. */
  HOOK_GITHUB_SECRET?: string;
  HOOK_GENERIC_SECRET?: string;
  /** The Slack app's signing secret (webhooks/slack.ts). */
  HOOK_SLACK_SECRET?: string;
  /** Where the generic webhook POSTs its results (optional; checked by the outbound URL guard). */
  HOOK_GENERIC_CALLBACK_URL?: string;
  /** HMAC-SHA256 key of approval notifications (src/approvals/approval-notify.ts); needed when APPROVAL_NOTIFY_URL is set. */
  APPROVAL_NOTIFY_SECRET?: string;
  /** Signs MCP session ids (src/mcp/http/mcp-session-id.ts), at least 32 characters; unset, a key derived from ADMIN_TOKEN does. */
  MCP_SESSION_SECRET?: string;
  /** Encrypts the OAuth tokens of remote MCP servers at rest (AES-GCM; src/mcp/federation/oauth-store.ts); at least 32 characters. */
  MCP_TOKEN_KEY?: string;
  /**
   * Signs identity tokens (src/identity/): a private EC P-256 JWK, or a JSON array of them (the
   * first signs, all are published at /.well-known/jwks.json).
   */
  IDENTITY_SIGNING_KEY?: string;
  /** Where toolgate's own spans go over OTLP/HTTP JSON, the collector's base URL (src/tracing/otlp-exporter.ts); unset, none are sent. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** Headers of every export, `name=value,name2=value2` with URL-encoded values (the collector's API key, usually). */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
}

interface Env extends ToolgateSecrets {}

declare namespace Cloudflare {
  interface Env extends ToolgateSecrets {}
}
