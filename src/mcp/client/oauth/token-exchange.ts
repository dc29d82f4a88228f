/**
 * OAuth 2.0 Token Exchange (RFC 8693) from the client's side: toolgate presents the caller's own
 * access token as `subject_token` at the upstream's authorization server and receives a token
 * for the upstream alone. The token endpoint is found as a sign-in finds it (RFC 9728, then RFC
 * 8414; sign-in-flow.ts), or configured; metadata that lists its grant types must list this one.
 *
 * Runtime-neutral (fetch only), like sign-in-flow.ts. Every failure is an ExchangeError whose
 * `problem` says whose it is to fix: the caller's sign-in, the deployment's configuration, or
 * the authorization server's answer.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isPlainRecord } from "../../../arguments/coerce-scalars.ts";
import type { TokenExchangeProblem } from "../../../errors/tool-failure.ts";
import { OutboundUrlError } from "../../../net/outbound-url.ts";
import { capStream } from "../../../net/read-capped.ts";
import { discoverAuthorization } from "./sign-in-flow.ts";

export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
/** RFC 8693 section 3: the subject is an OAuth access token, and so is what toolgate asks for. */
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

/** A token response is a few hundred bytes; anything past this is not one. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** Why an exchange failed (tool-failure.ts says what each means); `no_oauth_sign_in` is decided before any exchange. */
export type ExchangeProblem = Exclude<TokenExchangeProblem, "no_oauth_sign_in">;

export class ExchangeError extends Error {
  override readonly name = "ExchangeError";
  readonly problem: ExchangeProblem;
  readonly oauthError: string | undefined;
  constructor(problem: ExchangeProblem, message: string, oauthError?: string) {
    super(message);
    this.problem = problem;
    this.oauthError = oauthError;
  }
}

/** Where to exchange, and for which resource. */
export interface ExchangeTarget {
  tokenEndpoint: string;
  /** The RFC 8707 resource indicator: the metadata's `resource`, else the server's URL. */
  resource: string;
  /** How the token endpoint authenticates clients (RFC 8414 `token_endpoint_auth_methods_supported`), when it says. */
  authMethods: readonly string[] | undefined;
}

/** Finds the token endpoint of the server at `serverUrl`, or takes the configured one. */
export async function discoverExchangeTarget(serverUrl: string, configuredEndpoint: string | undefined, fetch: FetchLike): Promise<ExchangeTarget> {
  if (configuredEndpoint !== undefined) return { tokenEndpoint: configuredEndpoint, resource: serverUrl, authMethods: undefined };
  let found: Awaited<ReturnType<typeof discoverAuthorization>>;
  try {
    found = await discoverAuthorization(serverUrl, undefined, fetch);
  } catch (error) {
    throw new ExchangeError("not_supported", `finding its authorization server failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { metadata } = found;
  if (metadata === undefined) {
    throw new ExchangeError(
      "not_supported",
      `${found.authorizationServerUrl} publishes no authorization server metadata (RFC 8414); configure token_exchange.token_endpoint`,
    );
  }
  const grants = metadata.grant_types_supported;
  if (grants !== undefined && !grants.includes(TOKEN_EXCHANGE_GRANT)) {
    throw new ExchangeError(
      "not_supported",
      `${metadata.issuer} does not list the token exchange grant (RFC 8693) among its grant_types_supported (${grants.join(", ")})`,
    );
  }
  return { tokenEndpoint: metadata.token_endpoint, resource: found.resource ?? serverUrl, authMethods: metadata.token_endpoint_auth_methods_supported };
}

export interface ExchangeRequest {
  subjectToken: string;
  clientId: string;
  clientSecret: string;
  /** RFC 8693 `audience`: the upstream's logical name, where its authorization server wants one. */
  audience?: string | undefined;
  scope?: string | undefined;
}

export interface ExchangedToken {
  accessToken: string;
  /** Epoch ms; undefined when the answer gave no `expires_in`. */
  expiresAt: number | undefined;
}

/** Exchanges the subject token at the target's token endpoint. Throws ExchangeError. */
export async function exchangeToken(target: ExchangeTarget, request: ExchangeRequest, fetch: FetchLike, now: number): Promise<ExchangedToken> {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: request.subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    resource: target.resource,
  });
  if (request.audience !== undefined) body.set("audience", request.audience);
  if (request.scope !== undefined) body.set("scope", request.scope);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
  // RFC 8414: without the field, client_secret_basic is the default; post only when it is the one offered.
  const methods = target.authMethods;
  if (methods !== undefined && !methods.includes("client_secret_basic") && methods.includes("client_secret_post")) {
    body.set("client_id", request.clientId);
    body.set("client_secret", request.clientSecret);
  } else {
    // RFC 6749 section 2.3.1: each part form-encoded before joining.
    headers.authorization = `Basic ${btoa(`${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`)}`;
  }

  let response: Response;
  try {
    response = await fetch(target.tokenEndpoint, { method: "POST", headers, body });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The SSRF guard's refusal names OUTBOUND_ALLOW: the deployment's to change, not a network fault.
    if (error instanceof OutboundUrlError) throw new ExchangeError("not_configured", `its token endpoint is not reachable from here: ${message}`);
    throw new ExchangeError("unreachable", `its token endpoint ${target.tokenEndpoint} did not answer: ${message}`);
  }
  const answer = await readJson(response);
  if (!response.ok) {
    const code = typeof answer?.error === "string" ? answer.error : undefined;
    if (code === undefined || response.status >= 500) {
      throw new ExchangeError("bad_answer", `its token endpoint answered HTTP ${response.status}${answer === undefined ? " with no OAuth error" : ""}`);
    }
    const description = typeof answer?.error_description === "string" ? ` (${answer.error_description.slice(0, 300)})` : "";
    throw new ExchangeError("refused", `its authorization server refused the exchange: ${code}${description}`, code);
  }
  const token = answer?.access_token;
  const type = answer?.token_type;
  if (typeof token !== "string" || token === "" || typeof type !== "string" || type.toLowerCase() !== "bearer") {
    throw new ExchangeError(
      "bad_answer",
      answer === undefined
        ? `its token endpoint answered HTTP ${response.status} with ${response.headers.get("content-type") ?? "no content type"}, not a JSON token response`
        : "its token endpoint answered without a bearer access_token",
    );
  }
  const expiresIn = answer?.expires_in;
  return { accessToken: token, expiresAt: typeof expiresIn === "number" && expiresIn > 0 ? now + expiresIn * 1000 : undefined };
}

/** The body as a JSON object, or undefined when it is not one (an HTML page, too large, empty). */
async function readJson(response: Response): Promise<Record<string, unknown> | undefined> {
  if (response.body === null || !/\bjson\b/i.test(response.headers.get("content-type") ?? "")) {
    await response.body?.cancel();
    return undefined;
  }
  const capped = capStream(response.body, MAX_TOKEN_RESPONSE_BYTES);
  const text = await new Response(capped.stream).text();
  if (capped.cut) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, "+");
