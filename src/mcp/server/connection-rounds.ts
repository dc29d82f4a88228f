/**
 * A call that needs the caller's own connection (CONNECTION_REQUIRED, a `per_user` server), in
 * the modern era (MCP 2026-07-28): answered `input_required` with a URL-mode elicitation of the
 * one-time connect link, as a call pending approval is (approval-rounds.ts), for a client that
 * declared URL-mode elicitation in this request. The client shows the link to its user and
 * retries with its answer; the retry runs the call again, and once the person has connected it
 * goes through. No state is needed: nothing ran upstream, so running the call again is the resume.
 *
 * One round per call: a retry that answers the elicitation yet still finds no connection (the
 * person declined, or has not finished) gets the structured CONNECTION_REQUIRED result, with a
 * fresh link, rather than another round the client would loop on.
 *
 * A federated server's own link (its URLElicitationRequiredError) takes the same round: for the
 * client it is the same step, and the retry calls the server again.
 */

import { URL_ELICITATION_REQUIRED } from "../federation/url-elicitation.ts";
import { inputRequiredJson } from "./approval-rounds.ts";
import type { AnswerableOutcome } from "./call-result.ts";
import type { Answer } from "./json-rpc.ts";

/** The key of the round's one input request: the server it connects to. */
const roundKey = (server: string): string => `connect-${server}`;

/** The round for a CONNECTION_REQUIRED outcome, or undefined when the outcome is another, has no link, or the retry already answered it. */
export function connectionRound(outcome: AnswerableOutcome, presentedTool: string, inputResponses: unknown): Answer | undefined {
  const connection = outcome.envelope?.connection;
  if (outcome.errorCode !== "CONNECTION_REQUIRED" || connection?.url == null || !/^https?:\/\//.test(connection.url)) return undefined;
  const key = roundKey(connection.server);
  if (typeof inputResponses === "object" && inputResponses !== null && Object.hasOwn(inputResponses, key)) return undefined;
  const expires = connection.expires_at === null ? "" : `, before ${connection.expires_at}`;
  // The envelope's error names the tool, the server and why (none yet, or the upstream refused it).
  const why = outcome.envelope?.error ?? `Tool '${presentedTool}' needs your own account at MCP server '${connection.server}'.`;
  const message =
    connection.elicitation_id === undefined
      ? `${why} Open ${connection.url} once${expires}, in a browser signed in to toolgate's chat page with the same key, to connect it; accept once connected, and the call goes on.`
      : `${why} Open it and finish there; accept once done, and the call is made again.`;
  return { result: inputRequiredJson({ [key]: { method: "elicitation/create", params: { mode: "url", message, url: connection.url } } }, undefined) };
}

/** The one revision with URLElicitationRequiredError: older ones have no URL mode, 2026-07-28 reserves the code. */
export const URL_ELICITATION_VERSION = "2025-11-25";

/**
 * A federated server's link (its URLElicitationRequiredError, kept in the envelope's
 * `connection.elicitation_id`) for a 2025-era client: the same error, passed on as the server
 * sent it (MCP 2025-11-25, "URL Elicitation Required Error"), so the client shows the link and
 * retries when the person is done; the server's `elicitationId` is kept. Only for a request of
 * that revision (call-tool.ts): an older client knows no such error and gets CONNECTION_REQUIRED's
 * result. A 2025 session carries no capabilities, so a form-only 2025-11-25 client gets the error
 * too, which still names the link. Undefined for any other outcome.
 */
export function linkRequiredError(outcome: AnswerableOutcome): Answer | undefined {
  const connection = outcome.envelope?.connection;
  if (outcome.errorCode !== "CONNECTION_REQUIRED" || connection?.elicitation_id === undefined || connection.url === null) return undefined;
  const message = outcome.envelope?.error ?? `MCP server '${connection.server}' needs a person to open a link first.`;
  const elicitation = { mode: "url", elicitationId: connection.elicitation_id, url: connection.url, message };
  return { error: { code: URL_ELICITATION_REQUIRED, message, data: { elicitations: [elicitation] } } };
}
