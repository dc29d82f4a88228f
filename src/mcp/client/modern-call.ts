/**
 * A tools/call in MCP's modern era (2026-07-28), where a server's questions end the call with an
 * `input_required` result and the answers come back on a retry of the call. Apart from
 * mcp-client.ts because the round bookkeeping is its own concern; the client only numbers and
 * sends each leg (`send`).
 */
import { type CallResume, type InputAnswerer, type InputRequest, type InputRound, McpClientError } from "./json-rpc.ts";
import { ANSWERING_CAPABILITIES, completeResult, withEnvelope } from "./modern-request.ts";

/** Rounds of a modern server's questions in one call: the v2 SDK client's default bound. */
const MAX_INPUT_ROUNDS = 10;

/**
 * A modern tools/call: each `input_required` answer's questions go to `answer`, and the call is
 * sent again with their answers and the server's `requestState` (MCP 2026-07-28,
 * multi-round-trip requests), up to MAX_INPUT_ROUNDS rounds in all. Resumed, it starts from the
 * last round an earlier leg saw, so the server's first leg is not run again. The capabilities
 * declared are those toolgate can forward for this call: none without an answerer. `send` sends
 * one leg's params as a tools/call and returns its `result`.
 */
export async function modernCall(
  call: Record<string, unknown>,
  answer: InputAnswerer | undefined,
  resume: CallResume | undefined,
  send: (params: Record<string, unknown>) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const rounds: InputRound[] = answer === undefined ? [] : [...(resume?.from ?? [])];
  const answered = async (round: InputRound, ask: InputAnswerer): Promise<Record<string, unknown>> => ({
    ...call,
    inputResponses: await ask(round.requests),
    ...(round.requestState === undefined ? {} : { requestState: round.requestState }),
  });
  let params = call;
  const last = rounds.at(-1);
  if (last !== undefined && answer !== undefined) {
    // Earlier rounds' questions are asked again only so the client's answers keep their
    // positions (tool-questions.ts); the server wants the last round's alone.
    resume?.onRounds(rounds);
    for (const round of rounds.slice(0, -1)) await answer(round.requests);
    params = await answered(last, answer);
  }
  for (;;) {
    const result = await send(withEnvelope(params, answer === undefined ? {} : ANSWERING_CAPABILITIES));
    if (result.resultType !== "input_required" || answer === undefined) return completeResult("tools/call", result);
    if (rounds.length >= MAX_INPUT_ROUNDS)
      throw new McpClientError("protocol", `the server still asked for input after ${MAX_INPUT_ROUNDS} rounds of 'tools/call'`);
    const round = {
      requests: inputRequestsOf(result.inputRequests),
      requestState: typeof result.requestState === "string" ? result.requestState : undefined,
    };
    rounds.push(round);
    resume?.onRounds(rounds);
    params = await answered(round, answer);
  }
}

/** The questions of an `input_required` result, checked: each an object with a string method. */
function inputRequestsOf(value: unknown): Record<string, InputRequest> {
  if (typeof value !== "object" || value === null) throw new McpClientError("protocol", "an input_required result without inputRequests");
  const requests: Record<string, InputRequest> = {};
  for (const [key, request] of Object.entries(value as Record<string, unknown>)) {
    const { method, params } = (typeof request === "object" && request !== null ? request : {}) as { method?: unknown; params?: unknown };
    if (typeof method !== "string") throw new McpClientError("protocol", `input request '${key}' names no method`);
    requests[key] = { method, params: typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {} };
  }
  return requests;
}
