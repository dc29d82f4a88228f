// Secrets are not in wrangler.toml, so `wrangler types` cannot see them. Set each with
// `wrangler secret put NAME`; for local runs they come from .dev.vars.
interface ToolgateSecrets {
  /** The bootstrap admin token (scripts/dev-setup.ts writes one into .dev.vars locally). */
  ADMIN_TOKEN?: string;
  /** Used by the github_repo tool; unset, the tool is hidden. */
  GITHUB_TOKEN?: string;
  /** HMAC-SHA256 key of approval notifications (src/approvals/approval-notify.ts); needed when APPROVAL_NOTIFY_URL is set. */
  APPROVAL_NOTIFY_SECRET?: string;
}

interface Env extends ToolgateSecrets {}

declare namespace Cloudflare {
  interface Env extends ToolgateSecrets {}
}
