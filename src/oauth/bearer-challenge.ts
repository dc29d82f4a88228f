/**
 * The 401 of an MCP door, with the Bearer challenge MCP clients discover OAuth from (RFC 9728
 * section 5.1: `resource_metadata` names the door's protected resource metadata; RFC 6750
 * section 3: `error="invalid_token"` once a token was sent). The body stays the door's JSON-RPC
 * error, so clients that only read bodies see what they always saw.
 */
import { requestOrigin } from "../http/request-origin.ts";
import { errorText, RPC_SERVER_ERROR } from "../mcp/server/json-rpc.ts";
import { mcpResourceAt, resourceMetadataUrl } from "./oauth-paths.ts";

/** The challenge for a request to `url`; without `resource_metadata` off a door (it names none). */
export function bearerChallenge(url: string, error?: { description: string }): string {
  const origin = requestOrigin(url);
  const door = mcpResourceAt(origin, new URL(url).pathname);
  const parts = ['realm="toolgate"'];
  if (error !== undefined) parts.push('error="invalid_token"', `error_description="${error.description.replaceAll('"', "'")}"`);
  if (door !== undefined) parts.push(`resource_metadata="${resourceMetadataUrl(origin, door.resource)}"`);
  return `Bearer ${parts.join(", ")}`;
}

/** A door's own 401 (an API key's), its challenge replaced by the one that points at OAuth discovery. */
export function withBearerChallenge(response: Response, url: string, tokenSent: boolean): Response {
  const headers = new Headers(response.headers);
  headers.set("WWW-Authenticate", bearerChallenge(url, tokenSent ? { description: "The credential is not valid" } : undefined));
  return new Response(response.body, { status: response.status, headers });
}

/** The 401 for an OAuth access token the door does not accept. */
export function invalidTokenResponse(url: string, description: string): Response {
  const data = {
    error: `The access token was refused: ${description}.`,
    error_code: "UNAUTHENTICATED",
    suggestion:
      "Refresh the token, or sign in again through the resource metadata named in WWW-Authenticate; a token works only at the MCP door it was issued for.",
  };
  return new Response(errorText(null, { code: RPC_SERVER_ERROR, message: data.error, data }), {
    status: 401,
    headers: { "content-type": "application/json", "WWW-Authenticate": bearerChallenge(url, { description }) },
  });
}
