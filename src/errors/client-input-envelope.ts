/**
 * What the model reads when a call needs input from the MCP client that made it (elicitation,
 * sampling): a modern round waiting for the answer, answers that no longer fit the requestState
 * carrying them, or a federated server asking what this client cannot give.
 */
import type { ErrorEnvelope } from "./error-envelope.ts";
import type { ToolFailure } from "./tool-failure.ts";

type ClientInputFailure = Extract<ToolFailure, { kind: "client_input_needed" | "client_answers_too_large" | "client_input_unavailable" }>;

/** Maps a client-input failure to its envelope (unsanitised: `toEnvelope` sanitises). */
export function clientInputEnvelope(failure: ClientInputFailure): ErrorEnvelope {
  switch (failure.kind) {
    case "client_input_needed":
      return {
        error: `Tool '${failure.name}' is waiting for the client's answer to ${failure.method}; this round of the call ended without running further.`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: "Answer the input request (MCP input_required) and retry the call with its requestState.",
        retryable: false,
      };
    case "client_answers_too_large":
      return {
        error: `Tool '${failure.name}' asked another question, but the call's answers so far need ${failure.chars} characters of requestState, past the ${failure.maxChars} a retry may carry; the call ended here.`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion:
          "Call the tool again without requestState, and give shorter answers: every answer of a call travels in its requestState until the call completes.",
        retryable: false,
      };
    case "client_input_unavailable":
      return {
        error: `Tool '${failure.name}': MCP server '${failure.server}' needs input from the client during the call (${failure.method}) that this client cannot give: ${failure.reason}.`,
        error_code: "EXECUTION_FAILED",
        stage: "execute",
        suggestion: `Call '${failure.name}' from an MCP client that declares the ${failure.method.split("/")[0]} capability (over /mcp, accepting an event stream), or use another tool.`,
        retryable: false,
      };
  }
}
