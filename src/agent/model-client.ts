/**
 * One model turn over the OpenAI Chat Completions protocol, through the `openai` package (it runs
 * on Workers with the platform's fetch, and keeps the protocol's details, its SSE parsing
 * included, out of our code). A turn is streamed (`stream: true`, usage asked for with
 * `stream_options.include_usage`), so content reaches the run's listeners as the model writes it;
 * TurnAssembler puts the chunks back into the one message the run stores. A run whose caller
 * reads no text as it arrives asks for the turn whole instead (`stream: false`, one plain JSON
 * answer), which spares the SSE parsing. A server that ignores `stream` and answers a streamed
 * request with one whole `application/json` chat.completion gives the turn whole too, with no
 * text streamed. The request itself is sent by model-fetch.ts with the platform's fetch (its body
 * joined from pieces serialised once, model-request-body.ts); the package reads the answer: its
 * SSE parser (`Stream.fromSSEResponse`), its error classes (`APIError.generate`).
 *
 * The package's retries are not used: ours retry 429 and 5xx with backoff, honour Retry-After,
 * and never wait past the run's deadline, so a failing upstream ends the step with a clear status
 * instead of hanging the run. A stream that breaks is retried only while none of its content was
 * forwarded: text a client has already shown cannot be taken back, so after that the turn fails
 * with MODEL_STREAM_INTERRUPTED (docs/errors.md).
 */
import OpenAI from "openai";
import { Stream } from "openai/core/streaming";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ModelTarget } from "./model-config.ts";
import { fetchModel } from "./model-fetch.ts";
import { type ModelRequest, modelRequestBody } from "./model-request-body.ts";
import { TurnAssembler, type TurnUsage } from "./turn-assembler.ts";

export type { ModelRequest, TurnUsage };

export type ModelAnswer = { ok: true; message: ChatCompletion.Choice["message"]; finishReason: string; usage: TurnUsage | undefined; attempts: number };

/** How a turn failed: the run ends its step with this status and message. */
export type ModelFailure = {
  ok: false;
  code: "MODEL_TIMEOUT" | "MODEL_RATE_LIMITED" | "MODEL_UPSTREAM_ERROR" | "MODEL_REFUSED" | "MODEL_BAD_RESPONSE" | "MODEL_STREAM_INTERRUPTED";
  message: string;
  attempts: number;
};

export interface CallOptions {
  /** Epoch ms: no attempt starts, and no wait lasts, past it. */
  deadlineAt: number;
  /** Until the response's headers, then the longest silence between two chunks (or the rest of a whole answer). */
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  signal?: AbortSignal;
  /** Each piece of the answer's text, as it arrives (streamed turns only). */
  onDelta?: (content: string) => void;
  /** False: ask for the turn whole (no SSE). Default true. */
  stream?: boolean;
}

/** Asks the model for its next turn; never rejects. */
export async function callModel(target: ModelTarget, request: ModelRequest, options: CallOptions): Promise<ModelAnswer | ModelFailure> {
  let last: ModelFailure = { ok: false, code: "MODEL_TIMEOUT", message: "the run's deadline passed before the model was asked", attempts: 0 };
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const left = options.deadlineAt - Date.now();
    if (left <= 0) return { ...last, attempts: attempt - 1 };
    const outcome = await attemptOnce(target, request, Math.min(options.timeoutMs, left), options);
    if (outcome.ok) return { ...outcome, attempts: attempt };
    last = { ...outcome.failure, attempts: attempt };
    if (outcome.retryAfterMs === undefined || attempt === options.attempts) break;
    const wait = Math.max(outcome.retryAfterMs, options.backoffMs * 2 ** (attempt - 1));
    // A wait the deadline cannot hold ends the turn now, with the upstream's own answer.
    if (Date.now() + wait >= options.deadlineAt) return { ...last, message: `${last.message}; the next attempt would pass the run's deadline` };
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return last;
}

type Attempt =
  | { ok: true; message: ChatCompletion.Choice["message"]; finishReason: string; usage: TurnUsage | undefined }
  | { ok: false; failure: Omit<ModelFailure, "attempts">; retryAfterMs?: number };

async function attemptOnce(target: ModelTarget, request: ModelRequest, timeoutMs: number, options: CallOptions): Promise<Attempt> {
  if (options.stream === false) return wholeAttempt(target, request, timeoutMs, options.signal);
  // One timer bounds the attempt: until the response's headers, then the longest silence between
  // two chunks, so a stalled upstream cannot hang the run.
  const controller = new AbortController();
  const stopOnCaller = () => controller.abort();
  options.signal?.addEventListener("abort", stopOnCaller, { once: true });
  let stalled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ((stalled = true), controller.abort()), timeoutMs);
  };
  rearm();
  try {
    let response: Response;
    try {
      response = await fetchModel(target, {
        body: modelRequestBody(target.model, request, true),
        signal: controller.signal,
        timedOut: () => stalled,
        callerSignal: options.signal,
      });
    } catch (error) {
      return classify(error, timeoutMs);
    }
    // Some OpenAI-compatible servers ignore `stream` and answer one whole chat.completion; the
    // package would find no SSE in it, so it is read as the turn asked for whole.
    if (isJson(response)) return await bodyAnswer(response, () => stalled, timeoutMs, options.signal);
    rearm();
    return await streamAnswer(response, controller, rearm, timeoutMs, options);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", stopOnCaller);
  }
}

/**
 * A turn asked for whole: nothing to re-arm, so its bound (headers and body) is the platform's
 * own timeout signal rather than a timer set and cleared by us each turn (~0.1 ms of a turn's CPU
 * through the Node-compatible timers, scripts/bench/profile.ts --chat).
 */
async function wholeAttempt(target: ModelTarget, request: ModelRequest, timeoutMs: number, callerSignal: AbortSignal | undefined): Promise<Attempt> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal === undefined ? timeout : AbortSignal.any([timeout, callerSignal]);
  const timedOut = () => timeout.aborted;
  let response: Response;
  try {
    response = await fetchModel(target, { body: modelRequestBody(target.model, request, false), signal, timedOut, callerSignal });
  } catch (error) {
    return classify(error, timeoutMs);
  }
  return bodyAnswer(response, timedOut, timeoutMs, callerSignal);
}

/** A streamed turn, its SSE read by the package (`Stream.fromSSEResponse`), each chunk re-arming the idle timer. */
async function streamAnswer(response: Response, controller: AbortController, rearm: () => void, timeoutMs: number, options: CallOptions): Promise<Attempt> {
  const turn = new TurnAssembler();
  let forwarded = false;
  try {
    for await (const chunk of Stream.fromSSEResponse<ChatCompletionChunk>(response, controller)) {
      rearm();
      const text = turn.add(chunk);
      if (text === "") continue;
      forwarded = true;
      options.onDelta?.(text);
    }
  } catch (error) {
    if (!controller.signal.aborted) return cut(`the model's stream broke: ${String(error).slice(0, 300)}`, forwarded);
  }
  // The package ends an aborted stream quietly, so a stall shows only as the abort.
  if (options.signal?.aborted === true) return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: "the model request was cancelled" } };
  if (controller.signal.aborted)
    return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: `the model's stream sent nothing for ${timeoutMs} ms` } };
  if (turn.finishReason === undefined) return cut("the model's stream ended before a chunk with a finish_reason", forwarded);
  return { ok: true, message: turn.message(), finishReason: turn.finishReason, usage: turn.usage };
}

/**
 * A whole answer: a turn asked for whole, or a streamed request answered with one JSON body.
 * Its read is bounded by the attempt's timer, which makes a stalled body a timeout, not a bad answer.
 */
async function bodyAnswer(response: Response, stalled: () => boolean, timeoutMs: number, signal: AbortSignal | undefined): Promise<Attempt> {
  const completion = await response.json().then(
    (body: unknown) => body as ChatCompletion,
    () => undefined,
  );
  if (completion !== undefined) return answerOf(completion);
  if (stalled()) return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: `the model's whole answer did not arrive within ${timeoutMs} ms` } };
  if (signal?.aborted === true) return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: "the model request was cancelled" } };
  return { ok: false, failure: { ok: false, code: "MODEL_BAD_RESPONSE", message: "the model's answer is not a JSON chat.completion" } };
}

/** The turn a whole chat.completion carries. */
function answerOf(completion: ChatCompletion): Attempt {
  const choice = completion.choices?.[0];
  if (choice?.message === undefined) return { ok: false, failure: { ok: false, code: "MODEL_BAD_RESPONSE", message: "the model's answer has no choices" } };
  const usage = completion.usage ?? undefined;
  return {
    ok: true,
    message: choice.message,
    finishReason: choice.finish_reason ?? "stop",
    usage:
      usage === undefined
        ? undefined
        : { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0, totalTokens: usage.total_tokens ?? 0 },
  };
}

/** The package's own test for a JSON body (internal/parse.mjs), on the response's media type. */
function isJson(response: Response): boolean {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  return type.includes("application/json") || type.endsWith("+json");
}

/** A stream that broke after it opened: asked again only if none of its text reached a listener. */
function cut(message: string, forwarded: boolean): Attempt {
  const failure = {
    ok: false as const,
    code: "MODEL_STREAM_INTERRUPTED" as const,
    message: forwarded ? `${message}, after part of the answer was streamed` : message,
  };
  return forwarded ? { ok: false, failure } : { ok: false, failure, retryAfterMs: 0 };
}

function classify(error: unknown, timeoutMs: number): Attempt {
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: `the model did not answer within ${timeoutMs} ms` } };
  if (error instanceof OpenAI.APIUserAbortError)
    return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: "the model request was cancelled" } };
  if (error instanceof OpenAI.APIConnectionError)
    return {
      ok: false,
      failure: { ok: false, code: "MODEL_UPSTREAM_ERROR", message: `the model endpoint could not be reached: ${error.message}` },
      retryAfterMs: 0,
    };
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const status = error.status;
    const detail = `the model endpoint answered HTTP ${status}: ${error.message.slice(0, 300)}`;
    if (status === 429)
      return { ok: false, failure: { ok: false, code: "MODEL_RATE_LIMITED", message: detail }, retryAfterMs: retryAfterMs(error.headers) ?? 0 };
    if (status >= 500)
      return { ok: false, failure: { ok: false, code: "MODEL_UPSTREAM_ERROR", message: detail }, retryAfterMs: retryAfterMs(error.headers) ?? 0 };
    return { ok: false, failure: { ok: false, code: "MODEL_REFUSED", message: detail } };
  }
  return { ok: false, failure: { ok: false, code: "MODEL_BAD_RESPONSE", message: `the model's answer could not be read: ${String(error).slice(0, 300)}` } };
}

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get("retry-after");
  if (raw === null || raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
