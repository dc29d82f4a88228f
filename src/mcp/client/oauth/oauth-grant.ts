/**
 * What toolgate keeps about its sign-in at one remote MCP server: where the authorization server
 * is and what it said about itself, the client toolgate is there, and the tokens. Plain JSON, so
 * it can be sealed (src/crypto/aes-gcm.ts) and stored as it is.
 */
import type { AuthorizationServerMetadata, OAuthClientInformationMixed } from "@modelcontextprotocol/sdk/shared/auth.js";

export interface OAuthGrant {
  authorizationServerUrl: string;
  /** RFC 8414 / OpenID discovery metadata, or undefined for a server that publishes none (2025-03-26 defaults). */
  metadata?: AuthorizationServerMetadata;
  client: OAuthClientInformationMixed;
  /** The RFC 8707 resource indicator, from the server's protected resource metadata. */
  resource?: string;
  scope?: string;
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms after which the access token is refreshed before use; undefined when the server gave no expiry. */
  expiresAt?: number;
}

/** A sign-in under way: everything the callback needs to finish it. */
export interface PendingSignIn {
  authorizationServerUrl: string;
  metadata?: AuthorizationServerMetadata;
  client: OAuthClientInformationMixed;
  resource?: string;
  scope?: string;
  codeVerifier: string;
  redirectUrl: string;
}

/**
 * An OAuth step that failed, with the OAuth error code when the server sent one
 * (`invalid_grant`, `access_denied`, ...) and a message that names the step.
 */
export class OAuthFlowError extends Error {
  override readonly name = "OAuthFlowError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** Early enough that a token is not used in its last seconds (clock skew, a slow call). */
export const EXPIRY_MARGIN_MS = 30_000;

/** Whether the access token should be refreshed before it is sent. */
export function grantExpired(grant: OAuthGrant, now: number): boolean {
  return grant.expiresAt !== undefined && now >= grant.expiresAt - EXPIRY_MARGIN_MS;
}
