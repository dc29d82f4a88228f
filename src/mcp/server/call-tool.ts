/**
 * tools/call at the MCP door: the curated name resolved (curated-tools.ts), the call run through
 * the same stages as POST /v1/tool-calls (rate limits, the pipeline, the audit log), and its
 * outcome answered for the request's era. In the modern era (2026-07-28) a call that needs
 * something from outside (a person's approval, the client's answer to a tool's question) is
 * answered `input_required`, and a retry carrying the signed `requestState` resumes it
 * (approval-rounds.ts, tool-questions.ts); so is one that needs the caller's own connection,
 * whose retry runs it again (connection-rounds.ts). The 2025 lanes answer as before.
 */
import { serveCalls } from "../../batch/serve-calls.ts";
import { outcomeOfFailure } from "../../pipeline/outcome.ts";
import { clientAsker } from "../replies/ask-client.ts";
import { acceptsUrlElicitation, approvalRound, inputRequiredJson, resumeApprovalRound } from "./approval-rounds.ts";
import { toToolCallAnswer } from "./call-result.ts";
import { mcpClientChannel } from "./client-channel.ts";
import { connectionRound, linkRequiredError, URL_ELICITATION_VERSION } from "./connection-rounds.ts";
import { calledTool } from "./curated-tools.ts";
import { type Answer, RPC_INVALID_PARAMS, type RpcRequest } from "./json-rpc.ts";
import type { McpContext } from "./mcp-context.ts";
import { type AnsweredQuestion, argumentsHash, MAX_STATE_CHARS, type RoundBinding, readState, signState, stateChars } from "./request-state.ts";
import { notifyChangedResources } from "./resource-subscriptions.ts";
import { answersOf, ToolQuestions } from "./tool-questions.ts";

/** How long a round of a tool's questions may take the client to answer. */
const QUESTION_STATE_TTL_MS = 10 * 60_000;

const NO_ANSWERS: Readonly<Record<string, AnsweredQuestion>> = Object.freeze({});

const invalid = (message: string): Answer => ({ error: { code: RPC_INVALID_PARAMS, message: `Invalid params: ${message}` } });

/** Answers one tools/call. */
export async function callTool(request: RpcRequest, ctx: McpContext): Promise<Answer> {
  const { name, arguments: args, _meta: meta, requestState, inputResponses } = request.params;
  if (typeof name !== "string") return invalid("tools/call needs params.name, the tool's name as a string.");
  const called = calledTool(name, ctx.scope.allowedTools);
  if ("error" in called) return called;

  const secret = ctx.scope.config.mcpSessions.secret;
  const rounds = ctx.modern !== undefined && secret !== undefined;
  // Hashed only when a round needs it: most modern calls never do, and tools/call is the hot path.
  let bound: RoundBinding | undefined;
  const binding = (): RoundBinding =>
    (bound ??= { keyId: ctx.scope.keyId, endpoint: ctx.scope.allowedTools?.toolset ?? "", tool: called.tool, argumentsSha256: argumentsHash(args) });
  let answered: Readonly<Record<string, AnsweredQuestion>> = NO_ANSWERS;
  let carried: unknown;
  if (ctx.modern !== undefined && requestState !== undefined) {
    if (secret === undefined) return invalid("this server issues no requestState (it has no MCP_SESSION_SECRET); call without one.");
    const read = await readState(secret, requestState, binding());
    if (!read.ok) return invalid(`requestState refused: ${read.reason}. Call the tool again without requestState to start over.`);
    if (read.memory.kind === "approval") return resumeApprovalRound(read.memory.approvalId, read.memory.sessionId, requestState as string, ctx);
    answered = answersOf(read.memory, inputResponses);
    carried = read.memory.carried;
  }

  const token = typeof meta === "object" && meta !== null ? (meta as { progressToken?: unknown }).progressToken : undefined;
  const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
  // Modern questions only for a client that declared it can answer them, in this very request.
  const questions =
    rounds && (declares(ctx, "elicitation") || declares(ctx, "sampling"))
      ? new ToolQuestions(called.tool, answered, carried, ctx.modern?.clientCapabilities, (memory) => stateChars(binding(), memory, QUESTION_STATE_TTL_MS))
      : undefined;
  // Outside an MCP session each tools/call is a session of its own; each has its own way back to the client.
  const sessionId = ctx.inSession ? ctx.scope.sessionId : crypto.randomUUID();
  const scope = {
    ...ctx.scope,
    sessionId,
    client:
      ctx.modern === undefined
        ? mcpClientChannel(ctx.outbound, progressToken, clientAsker(ctx.scope.env, ctx.scope.keyId, ctx.outbound))
        : mcpClientChannel(ctx.outbound, progressToken, questions?.ask, ctx.modern.logLevel ?? "none", questions !== undefined, questions?.resume),
  };
  const input = { id: String(request.id), name: called.tool, arguments: args ?? {}, format: "mcp" as const, calledAs: called.calledAs };
  const [outcome] = await serveCalls([input], scope, 1, ctx.parts.batch);
  if (outcome === undefined) throw new Error(`tools/call of '${name}' produced no outcome`);
  const notifying = notifyChangedResources(outcome, ctx);
  if (notifying !== undefined) await notifying;

  const tooLarge = (chars: number): Answer => {
    const failure = { kind: "client_answers_too_large", name: called.tool, chars, maxChars: MAX_STATE_CHARS } as const;
    const answer = toToolCallAnswer(outcomeOfFailure(called.calledAs ?? called.tool, input.id, failure, {}), ctx.protocolVersion, ctx.inSession);
    return "error" in answer ? answer : { result: JSON.stringify(answer.result) };
  };
  // A question refused as too large ended the call (and its audit) with that failure. The client
  // is told so even when the tool failed another way (two questions at once, the other's failure
  // first): no state is handed out, so "retry with its requestState" would be false. A tool that
  // caught the refusal and ended ok keeps its answer.
  if (questions?.tooLarge !== undefined && outcome.status !== "ok") return tooLarge(questions.tooLarge.chars);
  if (questions !== undefined && secret !== undefined && questions.unanswered.size > 0) {
    const state = await signState(secret, binding(), questions.memory(), QUESTION_STATE_TTL_MS);
    // readState refuses a state past this bound, so handing it out would fail only on the retry,
    // with a misleading reason. Only what the tool carried after its last question gets here.
    if (state.length > MAX_STATE_CHARS) return tooLarge(state.length);
    const inputRequests = Object.fromEntries([...questions.unanswered].map(([key, { method, params }]) => [key, { method, params }]));
    return { result: inputRequiredJson(inputRequests, state) };
  }
  // The client is told about the tool by the name it called (a pending approval's "call it again").
  const presented = called.calledAs ?? outcome.tool;
  if (rounds && outcome.status === "pending_approval" && outcome.approval !== undefined && acceptsUrlElicitation(ctx)) {
    const round = await approvalRound(outcome.approval, presented, binding(), sessionId, ctx);
    if (round !== undefined) return round;
  }
  if (ctx.modern !== undefined && acceptsUrlElicitation(ctx)) {
    const round = connectionRound(outcome, presented, inputResponses);
    if (round !== undefined) return round;
  }
  if (ctx.modern === undefined && ctx.protocolVersion === URL_ELICITATION_VERSION) {
    const linkError = linkRequiredError(outcome);
    if (linkError !== undefined) return linkError;
  }
  const answer = toToolCallAnswer(called.calledAs === undefined ? outcome : { ...outcome, tool: presented }, ctx.protocolVersion, ctx.inSession);
  return "error" in answer ? answer : { result: JSON.stringify(answer.result) };
}

function declares(ctx: McpContext, capability: string): boolean {
  const declared = ctx.modern?.clientCapabilities[capability];
  return typeof declared === "object" && declared !== null;
}
