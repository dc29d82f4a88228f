/**
 * What a federated server asks during a call (elicitation in form or URL mode, sampling; on a
 * Streamable HTTP or legacy HTTP+SSE stream, or as a modern server's `input_required`), passed to
 * the client that made the call through the call's own channel
 * (`ctx.client.request`): on a 2025 lane a request on the call's event stream
 * (replies/ask-client.ts), in the modern era the door's `input_required` (tool-questions.ts).
 * The question is part of the call: it runs inside the call's pipeline (after policy and any
 * approval, within its deadline) and its audit record, never on its own.
 *
 * A modern client answers by retrying the call, and the call runs again. A modern server's own
 * `requestState` and questions travel in toolgate's signed requestState (`ClientChannel.resume`),
 * so the retry answers the server where it stopped, without calling it afresh. A 2025 server's
 * stream cannot outlive the leg (the retry may reach another isolate): it is called again, asks
 * the same question, and this time finds its answer (by position and hash). So, as for
 * toolgate's own tools, a 2025 upstream tool must ask before it changes anything. A client that
 * cannot be asked, refuses the request (a person's "decline" is an answer, not a refusal) or does
 * not answer in time ends the call with `client_input_unavailable`, which says so; the server is
 * told first (answer-server.ts).
 */
import { ToolFailureError } from "../../errors/tool-failure.ts";
import type { ClientChannel } from "../../registry/client-channel.ts";
import type { CallResume, InputAnswerer, InputRequest, InputRound } from "../client/mcp-client.ts";
import { ClientRequestError } from "../replies/ask-client.ts";
import { CLIENT_FEATURE_METHODS, METHOD_ECHO_CHARS } from "../replies/question-capability.ts";
import { isUrlMode, URL_MODE_LABEL, urlParamsFor, urlRefusal } from "./url-elicitation.ts";

/** JSON-RPC "method not found": how a client without the capability refuses the request. */
const RPC_METHOD_NOT_FOUND = -32601;

/**
 * The answerer of one call of `tool` (registry name) on `server`, asking through the call's
 * `client` channel when the door gave it a way to ask. A URL-mode elicitation is checked and
 * reshaped for the client's revision first (url-elicitation.ts); a modern client's channel
 * refuses a kind of question the client did not declare (tool-questions.ts), a 2025 client
 * refuses it itself.
 */
export function questionForwarder(tool: string, server: string, client: Pick<ClientChannel, "request" | "resume">): InputAnswerer {
  const { request: ask, resume } = client;
  const unavailable = (method: string, reason: string) => new ToolFailureError({ kind: "client_input_unavailable", name: tool, server, method, reason });
  return async function forwardQuestions(requests: Readonly<Record<string, InputRequest>>) {
    const answers: Record<string, unknown> = {};
    // A modern client is asked every question of the round at once: each unanswered one is
    // recorded before the first of them ends this leg.
    let waiting: ToolFailureError | undefined;
    for (const [key, question] of Object.entries(requests)) {
      // A modern server's input_required names its methods freely: only client features are
      // questions. Checked first, so no later refusal repeats a name the server chose unbounded.
      if (!CLIENT_FEATURE_METHODS.has(question.method))
        throw unavailable(question.method.slice(0, METHOD_ECHO_CHARS), "it is no request a server may send its client (elicitation, sampling, roots)");
      const urlMode = isUrlMode(question.method, question.params);
      const method = urlMode ? URL_MODE_LABEL : question.method;
      if (ask === undefined)
        throw unavailable(
          method,
          "it made the call without a way to be asked (over /v1, or an MCP request that accepts no event stream or declares no such capability)",
        );
      const refused = urlMode ? urlRefusal(question.params) : undefined;
      if (refused !== undefined) throw unavailable(method, refused);
      // Only a modern door carries a call across legs (ClientChannel.resume): that is the client's revision.
      const params = urlMode ? urlParamsFor(question.params, resume !== undefined) : question.params;
      try {
        answers[key] = await ask(question.method, params);
      } catch (error) {
        if (error instanceof ToolFailureError && error.failure.kind === "client_input_needed") {
          waiting ??= error;
          continue;
        }
        if (error instanceof ClientRequestError) {
          throw unavailable(method, error.code === RPC_METHOD_NOT_FOUND ? `it has no such capability (${error.message})` : error.message);
        }
        throw error;
      }
    }
    if (waiting !== undefined) throw waiting;
    return answers;
  };
}

/**
 * The resumption of a modern upstream call across the downstream's legs, or undefined where the
 * door answers questions within the call (2025 lanes). The rounds are carried as the client
 * layer saw them; the state is toolgate's own signature, so they are read back as written.
 */
export function callResume(resume: ClientChannel["resume"]): CallResume | undefined {
  if (resume === undefined) return undefined;
  const carried = resume.carried as { rounds?: unknown } | undefined;
  const from = Array.isArray(carried?.rounds) ? (carried.rounds as InputRound[]) : [];
  return { from, onRounds: (rounds) => resume.carry({ rounds }) };
}
