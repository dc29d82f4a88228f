/**
 * Where a `per_user` source's people connect their accounts: the authorization and token
 * endpoints and the scopes, from the source's configuration, else from its spec's OAuth 2
 * authorization-code flow (OpenAPI 3 `components.securitySchemes.*.flows.authorizationCode`,
 * Swagger 2 `securityDefinitions.*` with `flow: accessCode`). Resolved once, when the spec is
 * imported or the build-time source is registered, so a call never walks the spec.
 */
import { isPlainRecord } from "../arguments/coerce-scalars.ts";
import type { PerUserSourceAuth } from "./source-config.ts";

/** The resolved endpoints a connection link and its refreshes use. */
export interface UserOAuthEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
  /** Space-separated; absent when neither the configuration nor the spec names any. */
  scope?: string;
}

/** The spec's first authorization-code flow, its URLs as written (they may be relative). */
export function specCodeFlow(doc: Record<string, unknown>): { authorizationUrl?: unknown; tokenUrl?: unknown; scopes?: unknown } | undefined {
  const components = doc.components;
  const schemes = isPlainRecord(components) ? components.securitySchemes : doc.securityDefinitions;
  if (!isPlainRecord(schemes)) return undefined;
  for (const scheme of Object.values(schemes)) {
    if (!isPlainRecord(scheme) || scheme.type !== "oauth2") continue;
    const flows = scheme.flows;
    if (isPlainRecord(flows) && isPlainRecord(flows.authorizationCode)) return flows.authorizationCode;
    // Swagger 2.0 §Security Scheme Object: the authorization-code flow is called `accessCode`.
    if (scheme.flow === "accessCode") return scheme;
  }
  return undefined;
}

/**
 * The endpoints for `auth`: each configured one wins, the spec's flow fills the rest, and a
 * relative URL in the spec is read against the base URL (OpenAPI 3.1 §4.8.30). A refusal says
 * what to configure.
 */
export function resolveUserOAuth(
  auth: PerUserSourceAuth,
  flow: ReturnType<typeof specCodeFlow>,
  baseUrl: string,
): { ok: true; endpoints: UserOAuthEndpoints } | { ok: false; reason: string } {
  const fromSpec = (value: unknown): string | undefined => {
    if (typeof value !== "string" || value === "") return undefined;
    try {
      const url = new URL(value, `${baseUrl}/`);
      return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
    } catch {
      return undefined;
    }
  };
  const authorizationUrl = auth.authorization_url ?? fromSpec(flow?.authorizationUrl);
  const tokenUrl = auth.token_url ?? fromSpec(flow?.tokenUrl);
  if (authorizationUrl === undefined || tokenUrl === undefined) {
    const missing = [authorizationUrl === undefined ? "authorization_url" : [], tokenUrl === undefined ? "token_url" : []].flat().join(" and ");
    return {
      ok: false,
      reason: `per_user auth needs ${missing}: the spec's securitySchemes give no OAuth 2 authorization-code flow with it, so set auth.${missing.replace(" and ", " and auth.")}`,
    };
  }
  const specScopes = isPlainRecord(flow?.scopes) ? Object.keys(flow.scopes).join(" ") : "";
  const scope = auth.scope ?? (specScopes === "" ? undefined : specScopes);
  return { ok: true, endpoints: { authorizationUrl, tokenUrl, ...(scope === undefined ? {} : { scope }) } };
}
