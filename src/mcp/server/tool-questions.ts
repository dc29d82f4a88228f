/**
 * Questions toolgate's own tools ask their client (elicitation, sampling) in the modern era,
 * where there is no server-to-client request on a stream: the revision's `input_required`
 * instead (MCP 2026-07-28, multi-round-trip requests). A tool's `ctx.client.request` looks its
 * question up among the answers the client already gave; an unanswered one ends this leg, and
 * the door answers `input_required` naming it. The client answers and retries; the tool runs
 * again and, asking the same question in the same place, gets its answer.
 *
 * So a tool that asks runs once per round, up to its question: a tool must ask before it changes
 * anything (the conformance fixtures do). An answer counts only for the question it was given
 * to: keys are the question's position (`q0`, `q1`, ...) and the signed state carries each
 * question's hash, so an answer to another question, or one no one asked, is never handed over.
 */
import { canonicalJson } from "../../audit/canonical-json.ts";
import { sha256Hex } from "../../crypto/sha256.ts";
import { ToolFailureError } from "../../errors/tool-failure.ts";
import { ClientRequestError } from "../replies/ask-client.ts";
import { missingCapability } from "../replies/question-capability.ts";
import { RPC_METHOD_NOT_FOUND } from "./json-rpc.ts";
import { type AnsweredQuestion, MAX_STATE_CHARS, type RoundMemory } from "./request-state.ts";

/** One leg's questions. */
export class ToolQuestions {
  /** Questions asked in this leg that have no answer yet (key -> the embedded request). */
  readonly unanswered = new Map<string, { method: string; params: Record<string, unknown>; hash: string }>();
  #next = 0;

  /** What the tool leaves for its retry in this leg (ClientChannel.resume), signed into the state. */
  toCarry: unknown;

  /** Set when a question was refused because the round's state would outgrow MAX_STATE_CHARS: no round is handed out then. */
  tooLarge: { chars: number } | undefined;

  /**
   * The length of the state with the questions asked so far, serialised once per leg (and again
   * after a carry): each later question adds its entry's bound, so an upstream asking hundreds
   * of questions in one round costs one serialisation, not one per question.
   */
  #chars: number | undefined;

  /** `ClientChannel.resume` for this leg: what the last leg carried, and where this one leaves its value. */
  readonly resume: { readonly carried: unknown; carry(value: unknown): void };

  constructor(
    private readonly tool: string,
    private readonly answered: Readonly<Record<string, AnsweredQuestion>>,
    carried: unknown = undefined,
    /** The client capabilities the request declared: a question of a kind not among them is refused, not asked. */
    private readonly declared: Readonly<Record<string, unknown>> = {},
    /** The length of the signed state a round remembering `memory` would hand out (request-state.ts stateChars). */
    private readonly stateChars: (memory: RoundMemory) => number,
  ) {
    this.resume = {
      carried,
      carry: (value) => {
        this.toCarry = value;
        this.#chars = undefined;
      },
    };
  }

  /** `ClientChannel.request` for this leg. */
  readonly ask = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    const missing = missingCapability(method, params, this.declared);
    // What a 2025 client without the capability answers (JSON-RPC "method not found"), so callers read both alike.
    if (missing !== undefined) throw new ClientRequestError(`The client declared no ${missing} capability in this request.`, RPC_METHOD_NOT_FOUND);
    const key = `q${this.#next++}`;
    const hash = sha256Hex(canonicalJson({ method, params }));
    const found = this.answered[key];
    if (found !== undefined && found.hash === hash) return found.result;
    this.unanswered.set(key, { method, params, hash });
    // Checked as the question is asked, so the call ends, and is audited, as what the client gets:
    // a retry could not carry this round's answers. (Something carried after it is checked once
    // the state is signed, call-tool.ts.)
    const chars = this.#chars === undefined ? this.stateChars(this.memory()) : this.#chars + askedEntryChars(key);
    this.#chars = chars;
    if (chars > MAX_STATE_CHARS) {
      this.tooLarge = { chars };
      throw new ToolFailureError({ kind: "client_answers_too_large", name: this.tool, chars, maxChars: MAX_STATE_CHARS });
    }
    // A typed failure, not a throw of our own: a handler_threw would count against the tool's breaker.
    throw new ToolFailureError({ kind: "client_input_needed", name: this.tool, method });
  };

  /** What this leg's round would remember: the questions awaiting an answer, the earlier answers, what the tool carries. */
  memory(): RoundMemory {
    const asked = Object.fromEntries([...this.unanswered].map(([key, question]) => [key, question.hash]));
    return { kind: "questions", asked, answered: this.answered, ...(this.toCarry === undefined ? {} : { carried: this.toCarry }) };
  }
}

/**
 * At most how much one more asked question lengthens a state: `,"<key>":"<64 hex>"` in the JSON,
 * base64url'd (4 characters per 3 bytes, and one for the rounding).
 */
function askedEntryChars(key: string): number {
  return Math.ceil(((key.length + 70) * 4) / 3) + 1;
}

/**
 * The answers a retry brings: those of earlier rounds, plus this round's `inputResponses` to the
 * questions the state says were asked (anything else the client sent is ignored).
 */
export function answersOf(
  memory: { asked: Readonly<Record<string, string>>; answered: Readonly<Record<string, AnsweredQuestion>> },
  inputResponses: unknown,
): Record<string, AnsweredQuestion> {
  const answers: Record<string, AnsweredQuestion> = { ...memory.answered };
  if (typeof inputResponses !== "object" || inputResponses === null) return answers;
  const given = inputResponses as Record<string, unknown>;
  for (const [key, hash] of Object.entries(memory.asked)) {
    if (Object.hasOwn(given, key) && given[key] !== undefined) answers[key] = { hash, result: given[key] };
  }
  return answers;
}
