/**
 * How a transport reports an HTTP refusal. Apart from streamable-http.ts because legacy-sse.ts
 * and the federation's sign-in (start-sign-in.ts) read refusals the same way.
 */
import { type AuthChallenge, McpClientError } from "./json-rpc.ts";

/** Bodies are read only this far for error text. */
const ERROR_TEXT_CHARS = 300;

/**
 * The McpClientError for a non-2xx answer, with the start of its body. A 401, or a 403 whose
 * challenge says `insufficient_scope`, is `unauthorized` with the challenge (spec, "Authorization").
 */
export async function httpError(response: Response, what: string): Promise<McpClientError> {
  const text = (await response.text().catch(() => "")).slice(0, ERROR_TEXT_CHARS);
  const message = `${what} answered HTTP ${response.status}${text === "" ? "" : `: ${text}`}`;
  const challenge = response.status === 401 || response.status === 403 ? await readChallenge(response) : undefined;
  if (response.status === 401 || challenge?.error === "insufficient_scope") return new McpClientError("unauthorized", message, response.status, challenge);
  return new McpClientError("http", message, response.status);
}

/**
 * The parameters of a `WWW-Authenticate: Bearer` header, as the SDK's client reads them. The
 * SDK's client auth module is imported here, at the first challenge: it builds the SDK's zod
 * schemas when it loads, which cost every cold isolate ~20 ms at start-up (issue 33).
 */
export async function readChallenge(response: Response): Promise<AuthChallenge> {
  const { extractWWWAuthenticateParams } = await import("@modelcontextprotocol/sdk/client/auth.js");
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
  return {
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: resourceMetadataUrl.href }),
    ...(scope === undefined ? {} : { scope }),
    ...(error === undefined ? {} : { error }),
  };
}
