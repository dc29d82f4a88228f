/**
 * The MCP server forms' fields as the JSON bodies POST and PUT /v1/mcp-servers take. Only the
 * shape changes here (header lines become `{name: {secret}}`); every check is the API's, so a
 * value it refuses reaches it as typed and comes back with its own message.
 */
import type { McpServerFormValues, McpServerWire } from "./mcp-servers-page.tsx";

/** `Header-Name: SECRET_NAME` per line; a line without a colon names a header with no secret, for the API to refuse. */
function headersOf(text: string): Record<string, { secret: string }> {
  const headers: Record<string, { secret: string }> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    const colon = line.indexOf(":");
    const name = (colon === -1 ? line : line.slice(0, colon)).trim();
    headers[name] = { secret: colon === -1 ? "" : line.slice(colon + 1).trim() };
  }
  return headers;
}

/** The request body of the add form. */
export function createServerBody(values: McpServerFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = { name: values.name?.trim() ?? "", url: values.url?.trim() ?? "", headers: headersOf(values.headers ?? "") };
  if (values.pin !== undefined && values.pin !== "") body.pin = values.pin;
  return body;
}

/** The server's configuration as PUT takes it, with `enabled` set: everything else stays as it is. */
export function enabledBody(server: McpServerWire, enabled: boolean): Record<string, unknown> {
  return {
    url: server.url,
    headers: server.headers,
    timeout_ms: server.timeout_ms,
    ...(server.include === null ? {} : { include: server.include }),
    exclude: server.exclude,
    pin: server.pin,
    ...(server.oauth === null ? {} : { oauth: server.oauth }),
    enabled,
  };
}
