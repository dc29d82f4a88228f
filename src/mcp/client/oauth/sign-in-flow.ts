/**
 * The MCP authorization flow from the client's side (spec 2025-11-25, "Authorization"), built on
 * the SDK's client auth helpers: protected resource metadata (RFC 9728, from the 401's
 * `resource_metadata` or the well-known paths), authorization server metadata (RFC 8414 with the
 * OpenID discovery fallbacks), the client (pre-registered, a client ID metadata document URL when
 * the server supports them, else dynamic registration, RFC 7591), then the authorization code
 * with PKCE S256, its exchange, and refresh.
 *
 * Runtime-neutral: only fetch and Web Crypto, so the Worker and the conformance harness (Node)
 * run the same code: the Worker's sign-in in test/mcp/federation/oauth-sign-in.test.ts (workerd),
 * the harness in test/scripts/mcp-client-conformance.test.ts (Node).
 */
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthProtectedResourceMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AuthChallenge } from "../json-rpc.ts";
import { OAuthFlowError, type OAuthGrant, type PendingSignIn } from "./oauth-grant.ts";

export interface BeginSignInOptions {
  /** The MCP endpoint. */
  serverUrl: string;
  challenge?: AuthChallenge;
  /** Where the authorization server sends the browser back (toolgate's callback route). */
  redirectUrl: string;
  /** The OAuth `state`: random, and what the callback looks the sign-in up by. */
  state: string;
  clientName: string;
  /** A client registered by hand at the authorization server; skips registration. */
  preRegistered?: { client_id: string; client_secret?: string };
  /** An HTTPS URL of toolgate's client metadata document, used when the server supports them. */
  clientMetadataUrl?: string;
  /** Scopes to ask for when neither the challenge nor the resource metadata names any. */
  scope?: string;
  /** The client of an earlier sign-in at the same authorization server, reused instead of registering again. */
  previousClient?: { authorizationServerUrl: string; client: OAuthClientInformationMixed };
  fetch: FetchLike;
}

/**
 * Discovers the server's authorization server, gets a client there and builds the authorization
 * URL to send a person to. Nothing is stored: the caller keeps the returned pending sign-in.
 */
export async function beginSignIn(options: BeginSignInOptions): Promise<{ authorizationUrl: string; pending: PendingSignIn }> {
  const { serverUrl, challenge, fetch } = options;
  const { authorizationServerUrl, metadata, resource, resourceMetadata } = await discoverAuthorization(serverUrl, challenge, fetch);
  // The spec's scope selection: the challenge's, else everything the resource supports, else configured.
  const scope = challenge?.scope ?? resourceMetadata?.scopes_supported?.join(" ") ?? options.scope;
  const client = await step("client registration", async (): Promise<OAuthClientInformationMixed> => {
    if (options.preRegistered !== undefined) return options.preRegistered;
    if (options.previousClient !== undefined && options.previousClient.authorizationServerUrl === authorizationServerUrl) return options.previousClient.client;
    if (metadata?.client_id_metadata_document_supported === true && options.clientMetadataUrl !== undefined) return { client_id: options.clientMetadataUrl };
    return registerClient(authorizationServerUrl, {
      ...(metadata === undefined ? {} : { metadata }),
      clientMetadata: {
        client_name: options.clientName,
        redirect_uris: [options.redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
      ...(scope === undefined ? {} : { scope }),
      fetchFn: fetch,
    });
  });
  const { authorizationUrl, codeVerifier } = await step("authorization request", () =>
    startAuthorization(authorizationServerUrl, {
      ...(metadata === undefined ? {} : { metadata }),
      clientInformation: client,
      redirectUrl: options.redirectUrl,
      state: options.state,
      ...(scope === undefined ? {} : { scope }),
      ...(resource === undefined ? {} : { resource }),
    }),
  );
  const pending: PendingSignIn = {
    authorizationServerUrl,
    ...(metadata === undefined ? {} : { metadata }),
    client,
    ...(resource === undefined ? {} : { resource }),
    ...(scope === undefined ? {} : { scope }),
    codeVerifier,
    redirectUrl: options.redirectUrl,
  };
  return { authorizationUrl: authorizationUrl.href, pending };
}

/** Where a server's authorization is: its authorization server, that server's metadata, and the resource indicator to send. */
export interface AuthorizationDiscovery {
  authorizationServerUrl: string;
  metadata: AuthorizationServerMetadata | undefined;
  resource: string | undefined;
  resourceMetadata: OAuthProtectedResourceMetadata | undefined;
}

/**
 * Protected resource metadata (RFC 9728: the challenge's `resource_metadata`, else the
 * well-known paths), then its first authorization server's metadata (RFC 8414, with the OpenID
 * fallbacks). A server without the first is its own authorization server (2025-03-26).
 * Throws OAuthFlowError naming the step.
 */
export async function discoverAuthorization(serverUrl: string, challenge: AuthChallenge | undefined, fetch: FetchLike): Promise<AuthorizationDiscovery> {
  const resourceMetadata = await step("protected resource metadata", async () => {
    try {
      return await discoverOAuthProtectedResourceMetadata(
        serverUrl,
        challenge?.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: challenge.resourceMetadataUrl },
        fetch,
      );
    } catch (error) {
      // A resource that publishes no RFC 9728 document: 2025-03-26 servers are their own authorization server.
      if (challenge?.resourceMetadataUrl === undefined && error instanceof Error && /does not implement|HTTP 4\d\d/.test(error.message)) return undefined;
      throw error;
    }
  });
  const authorizationServerUrl = resourceMetadata?.authorization_servers?.[0] ?? new URL("/", serverUrl).href;
  const metadata = await step("authorization server metadata", () => discoverAuthorizationServerMetadata(authorizationServerUrl, { fetchFn: fetch }));
  return { authorizationServerUrl, metadata, resource: resourceFor(serverUrl, resourceMetadata), resourceMetadata };
}

/** Exchanges the authorization code the callback received (with the PKCE verifier) for tokens. */
export async function finishSignIn(pending: PendingSignIn, code: string, fetch: FetchLike, now: number): Promise<OAuthGrant> {
  const tokens = await step("token request", () =>
    exchangeAuthorization(pending.authorizationServerUrl, {
      ...(pending.metadata === undefined ? {} : { metadata: pending.metadata }),
      clientInformation: pending.client,
      authorizationCode: code,
      codeVerifier: pending.codeVerifier,
      redirectUri: pending.redirectUrl,
      ...(pending.resource === undefined ? {} : { resource: pending.resource }),
      fetchFn: fetch,
    }),
  );
  const { codeVerifier: _verifier, redirectUrl: _redirect, ...kept } = pending;
  return withTokens(kept, tokens, now);
}

/** A new access token for the grant; throws OAuthFlowError (`invalid_grant` when the person must sign in again). */
export async function refreshGrant(grant: OAuthGrant, fetch: FetchLike, now: number): Promise<OAuthGrant> {
  const { refreshToken } = grant;
  if (refreshToken === undefined) throw new OAuthFlowError("invalid_grant", "the access token expired and the authorization server gave no refresh token");
  const tokens = await step("token refresh", () =>
    refreshAuthorization(grant.authorizationServerUrl, {
      ...(grant.metadata === undefined ? {} : { metadata: grant.metadata }),
      clientInformation: grant.client,
      refreshToken,
      ...(grant.resource === undefined ? {} : { resource: grant.resource }),
      fetchFn: fetch,
    }),
  );
  return withTokens(grant, tokens, now);
}

function withTokens(base: Omit<OAuthGrant, "accessToken" | "refreshToken" | "expiresAt">, tokens: OAuthTokens, now: number): OAuthGrant {
  const { accessToken: _a, refreshToken: _r, expiresAt: _e, ...rest } = base as OAuthGrant;
  return {
    ...rest,
    accessToken: tokens.access_token,
    ...(tokens.refresh_token === undefined ? {} : { refreshToken: tokens.refresh_token }),
    ...(tokens.expires_in === undefined ? {} : { expiresAt: now + tokens.expires_in * 1000 }),
    ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
  };
}

/**
 * The resource indicator to send: the metadata's `resource` verbatim (it must name this server
 * or its origin, RFC 9728 section 3.3, or a server could collect tokens meant for another).
 */
function resourceFor(serverUrl: string, metadata: OAuthProtectedResourceMetadata | undefined): string | undefined {
  if (metadata === undefined) return undefined;
  if (!checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(serverUrl), configuredResource: metadata.resource })) {
    throw new OAuthFlowError("invalid_resource", `the protected resource metadata names ${metadata.resource}, which is not ${serverUrl} or its origin`);
  }
  return metadata.resource;
}

/** Runs one step, turning what it throws into an OAuthFlowError that names the step. */
export async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthFlowError) throw error;
    if (error instanceof OAuthError)
      throw new OAuthFlowError(error.errorCode, `${name}: ${error.errorCode}${error.message === "" ? "" : ` (${error.message})`}`);
    throw new OAuthFlowError("server_error", `${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
