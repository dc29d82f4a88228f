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
 */

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
  const message =
    `${outcome.envelope?.error ?? `Tool '${presentedTool}' needs your own account at MCP server '${connection.server}'.`} ` +
    `Open ${connection.url} once${expires}, in a browser signed in to toolgate's chat page with the same key, to connect it; accept once connected, and the call goes on.`;
  return { result: inputRequiredJson({ [key]: { method: "elicitation/create", params: { mode: "url", message, url: connection.url } } }, undefined) };
}
