/**
 * What @cloudflare/workers-oauth-provider keeps in the `OAUTH_KV` binding, named here because
 * docs/storage.md lists it and toolgate relies on its layout in one place: a grant's id is the
 * provider's user id, so every token of a grant is under `token:<grant id>:` (grant-tokens.ts
 * deletes them through the provider's own revokeGrant; the tests check none is left).
 */

/** A registered client: JSON ClientInfo, secrets hashed; dynamic clients expire after 90 days unused. */
export const OAUTH_CLIENT_PREFIX = "client:";
/** One consent (provider grant): `grant:<user id>:<grant id>`, props encrypted. */
export const OAUTH_GRANT_PREFIX = "grant:";
/** An access or refresh token by the SHA-256 of the token: `token:<user id>:<grant id>:<token hash>`. */
export const OAUTH_TOKEN_PREFIX = "token:";
/** A consent page's pending authorization request, encrypted, for ten minutes: `transaction:<hash of handle>`. */
export const OAUTH_TRANSACTION_PREFIX = "transaction:";

/** Where every token of toolgate grant `grantId` is kept. */
export const oauthTokensOf = (grantId: string): string => `${OAUTH_TOKEN_PREFIX}${grantId}:`;
