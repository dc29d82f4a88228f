/**
 * One model turn over the OpenAI Chat Completions protocol, through the `openai` package (it runs
 * on Workers with the platform's fetch, and keeps the protocol's details, streaming included, out
 * of our code). The package's own retries are off: ours retry 429 and 5xx with backoff, honour
 * Retry-After, and never wait past the run's deadline, so a failing upstream ends the step with
 * a clear status instead of hanging the run.
 */
import OpenAI from "openai";
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { ModelTarget } from "./model-config.ts";

export interface ModelRequest {
  messages: readonly ChatCompletionMessageParam[];
  tools: readonly ChatCompletionTool[];
}

/** Token counts of one turn, when the upstream reports them. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type ModelAnswer = { ok: true; message: ChatCompletion.Choice["message"]; finishReason: string; usage: TurnUsage | undefined; attempts: number };

/** How a turn failed: the run ends its step with this status and message. */
export type ModelFailure = { ok: false; code: "MODEL_TIMEOUT" | "MODEL_RATE_LIMITED" | "MODEL_UPSTREAM_ERROR" | "MODEL_REFUSED" | "MODEL_BAD_RESPONSE"; message: string; attempts: number };

export interface CallOptions {
  /** Epoch ms: no attempt starts, and no wait lasts, past it. */
  deadlineAt: number;
  timeoutMs: number;
  attempts: number;
  backoffMs: number;
  signal?: AbortSignal;
}

const clients = new Map<string, OpenAI>();

/** One client per endpoint and key in the isolate: building one parses options and headers. */
function clientFor(target: ModelTarget): OpenAI {
  const cacheKey = `${target.baseUrl}\n${target.apiKey}`;
  let client = clients.get(cacheKey);
  if (client === undefined) {
    // fetch wrapped, so the global is looked up per call (tests and workerd may replace it).
    client = new OpenAI({ baseURL: target.baseUrl, apiKey: target.apiKey, maxRetries: 0, fetch: (input, init) => fetch(input, init) });
    clients.set(cacheKey, client);
  }
  return client;
}

/** Asks the model for its next turn; never rejects. */
export async function callModel(target: ModelTarget, request: ModelRequest, options: CallOptions): Promise<ModelAnswer | ModelFailure> {
  let last: ModelFailure = { ok: false, code: "MODEL_TIMEOUT", message: "the run's deadline passed before the model was asked", attempts: 0 };
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const left = options.deadlineAt - Date.now();
    if (left <= 0) return { ...last, attempts: attempt - 1 };
    const outcome = await attemptOnce(target, request, Math.min(options.timeoutMs, left), options.signal);
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

type Attempt = { ok: true; message: ChatCompletion.Choice["message"]; finishReason: string; usage: TurnUsage | undefined } | { ok: false; failure: Omit<ModelFailure, "attempts">; retryAfterMs?: number };

async function attemptOnce(target: ModelTarget, request: ModelRequest, timeoutMs: number, signal: AbortSignal | undefined): Promise<Attempt> {
  try {
    const completion = await clientFor(target).chat.completions.create(
      { model: target.model, messages: [...request.messages], ...(request.tools.length === 0 ? {} : { tools: [...request.tools] }) },
      { timeout: timeoutMs, maxRetries: 0, ...(signal === undefined ? {} : { signal }) },
    );
    const choice = completion.choices?.[0];
    if (choice?.message === undefined) return { ok: false, failure: { ok: false, code: "MODEL_BAD_RESPONSE", message: "the model's answer has no choices[0].message" } };
    const usage = completion.usage === undefined || completion.usage === null ? undefined : { promptTokens: completion.usage.prompt_tokens ?? 0, completionTokens: completion.usage.completion_tokens ?? 0, totalTokens: completion.usage.total_tokens ?? 0 };
    return { ok: true, message: choice.message, finishReason: choice.finish_reason ?? "stop", usage };
  } catch (error) {
    return classify(error, timeoutMs);
  }
}

function classify(error: unknown, timeoutMs: number): Attempt {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: `the model did not answer within ${timeoutMs} ms` } };
  if (error instanceof OpenAI.APIUserAbortError) return { ok: false, failure: { ok: false, code: "MODEL_TIMEOUT", message: "the model request was cancelled" } };
  if (error instanceof OpenAI.APIConnectionError) return { ok: false, failure: { ok: false, code: "MODEL_UPSTREAM_ERROR", message: `the model endpoint could not be reached: ${error.message}` }, retryAfterMs: 0 };
  if (error instanceof OpenAI.APIError && typeof error.status === "number") {
    const status = error.status;
    const detail = `the model endpoint answered HTTP ${status}: ${error.message.slice(0, 300)}`;
    if (status === 429) return { ok: false, failure: { ok: false, code: "MODEL_RATE_LIMITED", message: detail }, retryAfterMs: retryAfterMs(error.headers) ?? 0 };
    if (status >= 500) return { ok: false, failure: { ok: false, code: "MODEL_UPSTREAM_ERROR", message: detail }, retryAfterMs: retryAfterMs(error.headers) ?? 0 };
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
