/**
 * A federated server's URL-mode elicitation (MCP 2025-11-25 and 2026-07-28, "Elicitation": the
 * client shows a person a URL to open for what must not pass through it, such as a sign-in or a
 * payment), checked and reshaped before it is passed to the client that made the call.
 *
 * toolgate never fetches that URL: a person opens it in a browser, after the client showed it and
 * asked (the revision forbids prefetching). So the SSRF guard, which keeps toolgate's own
 * fetches inside OUTBOUND_ALLOW, is not the check: an address private to the Worker's network
 * means nothing in the person's browser. What a gateway between many clients and servers must
 * hold for them is what the spec asks of the link itself: https, since the page may take a
 * password or a card (the spec's "SHOULD use HTTPS" is a MUST here, where toolgate vouches for
 * the relay), and no user:password@ part, which can make `https://trusted.example@evil.example`
 * read as the trusted host the client must display.
 *
 * The two revisions differ in one field: 2025-11-25 requires an `elicitationId` (keying its
 * `notifications/elicitation/complete`), 2026-07-28 removed both. A 2025 client gets one minted
 * when the server sent none; a modern client gets none, which also keeps the question the same
 * on every retry of the call (a 2025 server mints a new id each time it asks, and a modern
 * client's answer counts only for the very question it was given; tool-questions.ts).
 */

import type { ToolFailure } from "../../errors/tool-failure.ts";

/** JSON-RPC error URLElicitationRequired (MCP 2025-11-25; 2026-07-28 reserves the code and asks with `input_required` instead). */
export const URL_ELICITATION_REQUIRED = -32042;

/** The question's label in errors: the method, and the mode when it is a URL. */
export const URL_MODE_LABEL = "elicitation/create (url mode)";

/** The longest link passed on: more than any sign-in page needs, and a bound on what a server adds to every answer. */
const MAX_URL_CHARS = 2048;

/**
 * An `elicitationId` passed on as the server sent it: ids are opaque tokens, and a longer or
 * freer one could carry text meant for the model. Anything else is replaced by a minted one.
 */
const ELICITATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The server's `elicitationId` when it is a plain token, or a new one. */
function elicitationIdOf(params: Readonly<Record<string, unknown>>): string {
  const { elicitationId } = params;
  return typeof elicitationId === "string" && ELICITATION_ID.test(elicitationId) ? elicitationId : crypto.randomUUID();
}

/** Whether an `elicitation/create` asks in URL mode. */
export const isUrlMode = (method: string, params: Readonly<Record<string, unknown>>): boolean => method === "elicitation/create" && params.mode === "url";

/** Why toolgate will not pass the URL on, or undefined when it will. */
export function urlRefusal(params: Readonly<Record<string, unknown>>): string | undefined {
  const { url } = params;
  if (typeof url !== "string") return "it asked for URL-mode elicitation without a url";
  if (url.length > MAX_URL_CHARS) return `it asked the person to open a link of ${url.length} characters, over the ${MAX_URL_CHARS} toolgate passes on`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `it asked the person to open ${JSON.stringify(url.slice(0, 200))}, which is not a URL`;
  }
  if (parsed.protocol !== "https:" || parsed.username !== "" || parsed.password !== "") {
    return `toolgate passes on only https links without a user:password@ part, and it asked the person to open '${parsed.protocol}//${parsed.host}${parsed.pathname}'`;
  }
  return undefined;
}

/** The params as the downstream's revision defines URL mode: with an `elicitationId` for a 2025 client, without for a modern one. */
export function urlParamsFor(params: Readonly<Record<string, unknown>>, modernClient: boolean): Record<string, unknown> {
  const { elicitationId: _, ...rest } = params;
  return modernClient ? rest : { ...rest, elicitationId: elicitationIdOf(params) };
}

/**
 * What a call of `tool` answered with URLElicitationRequiredError means: the first link its
 * `data.elicitations` lists, checked as a question's would be, for a person to open before the
 * call is made again. The spec's list may hold several; one at a time is what every door can
 * show, and the retry brings the next. Undefined when the data lists no URL-mode elicitation.
 */
export function linkRequiredFailure(tool: string, server: string, data: unknown): ToolFailure | undefined {
  const listed = (data as { elicitations?: unknown } | null | undefined)?.elicitations;
  const first = Array.isArray(listed)
    ? (listed as unknown[]).find((e) => typeof e === "object" && e !== null && (e as { mode?: unknown }).mode === "url")
    : undefined;
  if (first === undefined) return undefined;
  const params = first as Record<string, unknown>;
  const refused = urlRefusal(params);
  if (refused !== undefined) return { kind: "client_input_unavailable", name: tool, server, method: URL_MODE_LABEL, reason: refused };
  const { url, message } = params;
  return {
    kind: "upstream_link_required",
    name: tool,
    server,
    url: url as string,
    message: typeof message === "string" ? message.slice(0, 500) : "",
    elicitationId: elicitationIdOf(params),
  };
}
