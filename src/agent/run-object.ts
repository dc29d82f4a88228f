/**
 * One Durable Object per agent run (`idFromName(runId)`): its record, transcript and events in
 * the object's SQLite storage (run-schema.ts), written after every step, and its steps driven by
 * the object's alarm, so a run survives approval waits of minutes, isolate evictions and
 * restarts. A step is one model turn and the calls it made.
 *
 * Exactly once: a step's calls are stored as in flight before any of them runs, in the same
 * write as the model's turn; their results replace them in one synchronous write when the batch
 * ends. A fresh instance that finds calls still in flight knows its predecessor died while they
 * ran: each gets a `run_interrupted` error for the model and is never run again. A model turn
 * whose answer was not yet stored is asked again (it has no effect but its cost).
 *
 * Approvals: a call needing one leaves the run `awaiting_approval`; the approval's Session
 * object calls `approvalSettled` when a person decides or it expires (src/approvals/
 * run-wakeups.ts), and the alarm is set to the approval's expiry as a fallback, never a poll.
 *
 * A run a webhook delivery started tells that delivery when it ends, the same way: a
 * `run_finished` message on the hooks queue, with the alarm as the retry until the queue takes it.
 *
 * Retention: a finished run sets its alarm RUN_RETENTION_DAYS ahead; that alarm deletes the
 * object's whole storage, after which the object answers as one that never held a run (404).
 */
import { DurableObject } from "cloudflare:workers";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { isSettled, type ApprovalView } from "../approvals/approval-view.ts";
import { sessionStub } from "../approvals/session-stub.ts";
import { loadConfig } from "../config/config.ts";
import { outcomeOfFailure } from "../pipeline/outcome.ts";
import type { KeyScope } from "../pipeline/types.ts";
import { resolveModel } from "./model-config.ts";
import { callModel } from "./model-client.ts";
import { RUN_ACCESS_TTL_MS, type RunGateway } from "./run-gateway.ts";
import { writeRunIndex } from "./run-index.ts";
import { RUN_SCHEMA_SQL } from "./run-schema.ts";
import { runSettings } from "./run-settings.ts";
import { RunStore } from "./run-store.ts";
import { callInputOf, nameOf, pendingOf, splitCalls, stepCallOf } from "./step-calls.ts";
import type { RunFinishedMessage } from "../webhooks/webhook-message.ts";
import { isTerminal, type Message, type RunEvent, type RunEventType, type RunRecord, type RunStart, type RunStatus } from "./run-types.ts";

/** How long after an approval's expiry the run reads it itself, if no wake came. */
const WAKE_FALLBACK_MS = 30_000;
/** How long one alarm steps before handing over to the next (an alarm handler's wall time is bounded). */
const STEP_LOOP_MS = 5 * 60_000;
/** When a webhook run's end notice is sent again if the queue has not taken it by then. */
const HOOK_NOTICE_RETRY_MS = 30_000;

/** When a finished run's storage is deleted: RUN_RETENTION_DAYS after its last change. */
const expiresAt = (env: Env, record: RunRecord): number => record.updatedAt + loadConfig(env).runRetentionDays * DAY_MS;
const DAY_MS = 86_400_000;

/** A step's scope and the definitions the model is offered, and when they were built. */
interface StepTools {
  ok: true;
  scope: KeyScope;
  tools: ChatCompletionTool[];
  at: number;
}

/** The run with its transcript, as GET /v1/runs/{id} shows it. */
export interface RunSnapshot {
  record: RunRecord;
  messages: Message[];
}

/**
 * The object's code; the Worker entry exports it as `Run` with `gateway` (run-gateway.ts) built
 * by the composition root.
 */
export abstract class RunObject extends DurableObject<Env> {
  protected abstract readonly gateway: RunGateway;
  /** Readers of the live event stream and waiters for a status change, in this instance. */
  readonly #listeners = new Set<(event: RunEvent) => void>();
  /** Work a step's calls left for after them (their audit records), awaited before the alarm ends. */
  readonly #background: Promise<unknown>[] = [];
  /** Set while the alarm loops over steps: a step that goes on then needs no alarm of its own. */
  #stepping = false;
  /** The text the model has streamed so far in the turn in progress: a reader joining mid-turn gets it first. */
  #live: { turn: number; text: string } | undefined;
  /** The last step's scope and tools (#open). */
  #opened: StepTools | undefined;
  readonly #store: RunStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(RUN_SCHEMA_SQL);
    this.#store = new RunStore(ctx.storage.sql);
  }

  /** Creates the run and schedules its first step; a second start of the same id returns the first. */
  async start(start: RunStart): Promise<RunRecord> {
    const existing = this.#store.record();
    if (existing !== undefined) return existing;
    const now = Date.now();
    const { messages, ...rest } = start;
    const record: RunRecord = {
      ...rest,
      status: "running",
      createdAt: now,
      updatedAt: now,
      turns: 0,
      toolCalls: 0,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      steps: [],
      pending: [],
      held: [],
      inflight: [],
      answer: null,
      clientToolCalls: [],
      finishReason: null,
      error: null,
      nextStepAt: now,
    };
    this.#store.save(record);
    this.#store.appendMessages(messages);
    this.#emit("run.started", { run_id: record.id, model: record.model.name, session_id: record.sessionId });
    await this.ctx.storage.setAlarm(now);
    await writeRunIndex(this.env.DB, record);
    return record;
  }

  /** The run and its transcript, or undefined when no run has this id. */
  async snapshot(): Promise<RunSnapshot | undefined> {
    const record = this.#store.record();
    return record === undefined ? undefined : { record, messages: [...this.#store.messages()] };
  }

  /** Waits up to `timeoutMs` until the run is no longer running (finished, or waiting on a person). */
  async wait(timeoutMs: number): Promise<RunRecord | undefined> {
    const current = this.#store.record();
    if (current === undefined || current.status !== "running") return current;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const listener = (event: RunEvent) => {
        if (event.type === "run.finished" || event.type === "approval.pending") done();
      };
      function done() {
        clearTimeout(timer);
        listeners.delete(listener);
        resolve();
      }
      const listeners = this.#listeners;
      listeners.add(listener);
    });
    return this.#store.record();
  }

  /**
   * The run's events after `after`, as NDJSON (one RunEvent a line): those stored, then live ones
   * until the run finishes. `untilApproval` also ends the stream when the run waits on a person.
   */
  async events(after: number, untilApproval = false): Promise<ReadableStream<Uint8Array>> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const ends = (event: RunEvent) => event.type === "run.finished" || (untilApproval && event.type === "approval.pending");
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      this.#listeners.delete(listener);
      writer.close().catch(() => undefined);
    };
    const send = (event: RunEvent) => {
      if (closed) return;
      // A reader that went away makes the write fail: stop feeding it.
      writer.write(encoder.encode(`${JSON.stringify(event)}\n`)).catch(close);
      if (ends(event)) close();
    };
    const listener = (event: RunEvent) => send(event);
    const stored = this.#store.eventsAfter(after);
    for (const event of stored) send(event);
    const record = this.#store.record();
    if (this.#live !== undefined) send({ seq: this.#store.lastSeq(), at: Date.now(), type: "delta", data: { turn: this.#live.turn, content: this.#live.text } });
    if (record === undefined || isTerminal(record.status) || (untilApproval && record.status === "awaiting_approval")) close();
    else this.#listeners.add(listener);
    return readable;
  }

  /** Cancels the run: no further step; a step in progress finishes its calls but the model is not asked again. */
  async cancel(): Promise<RunRecord | undefined> {
    const record = this.#store.record();
    if (record === undefined || isTerminal(record.status)) return record;
    await this.ctx.storage.deleteAlarm();
    return this.#finish(record, "cancelled", { error: { code: "CANCELLED", message: "The run was cancelled (POST /v1/runs/{id}/cancel)." } });
  }

  /** Called by the approval's Session object when it settles. */
  async approvalSettled(approvalId: string, approval: ApprovalView): Promise<void> {
    const record = this.#store.record();
    if (record === undefined || record.status !== "awaiting_approval") return;
    if (!record.pending.some((p) => p.approvalId === approvalId)) return;
    await this.#applySettled(record, [approval]);
  }

  /**
   * Steps until the run ends, waits on a person, or has stepped for STEP_LOOP_MS. Steps loop
   * inside one alarm rather than setting one per step: an alarm whose handler dies is retried by
   * the runtime, so the loop is as durable, and a step costs no alarm write.
   */
  override async alarm(): Promise<void> {
    let record = this.#store.record();
    if (record === undefined) return;
    if (isTerminal(record.status) && record.hook !== undefined && record.hookNotified !== true) return void (await this.#tellHook(record));
    if (isTerminal(record.status)) return this.#expire(record);
    if (record.inflight.length > 0) record = this.#recoverInflight(record);
    const started = Date.now();
    this.#stepping = true;
    try {
      if (record.status === "awaiting_approval") await this.#refreshPending(record);
      else await this.#step(record);
      for (;;) {
        record = this.#store.record();
        if (record === undefined || record.status !== "running") break;
        if (Date.now() - started >= STEP_LOOP_MS) {
          await this.ctx.storage.setAlarm(Date.now());
          break;
        }
        await this.#step(record);
      }
    } finally {
      this.#stepping = false;
      // The step's audit records: an alarm's end does not wait for waitUntil work, so it waits here.
      const background = this.#background.splice(0);
      await Promise.allSettled(background);
    }
  }

  /** One model turn and its calls. */
  async #step(start: RunRecord): Promise<void> {
    let record = start;
    const settings = runSettings(this.env);
    const limit = this.#limitReached(record);
    if (limit !== undefined) return void (await this.#finish(record, "limit_reached", { error: limit }));

    const model = resolveModel(this.env, record.model.name, record.keyId);
    if ("kind" in model) return void (await this.#finish(record, "failed", { error: { code: "MODEL_NOT_CONFIGURED", message: `The run's model '${record.model.name}' is not usable now (${model.kind}).` } }));
    const opened = await this.#open(record);
    if (!opened.ok) return void (await this.#finish(record, "failed", { error: { code: "PERMISSION_DENIED", message: opened.message } }));
    const { scope, tools } = opened;

    const modelStarted = Date.now();
    const answer = await callModel(model, { messages: this.#store.messages(), tools }, {
      deadlineAt: record.limits.deadlineAt,
      timeoutMs: settings.modelTimeoutMs,
      attempts: settings.modelAttempts,
      backoffMs: settings.modelBackoffMs,
      // Live only: the step stores the whole message once the stream ends (docs/formats.md).
      onDelta: (content) => {
        const turn = record.turns + 1;
        this.#live = { turn, text: this.#live?.turn === turn ? this.#live.text + content : content };
        this.#broadcast({ seq: this.#store.lastSeq(), at: Date.now(), type: "delta", data: { turn, content } });
      },
    });
    // No await from here to the turn's stored event: a reader joins either before (and gets the text so far) or after.
    this.#live = undefined;
    const modelMs = Date.now() - modelStarted;
    // Re-read: a cancel may have landed while the model was asked.
    record = this.#store.record() ?? record;
    if (isTerminal(record.status)) return;
    if (!answer.ok) return void (await this.#finish(record, "failed", { error: { code: answer.code, message: `${answer.message} (after ${answer.attempts} attempt(s))` } }));

    const turn = record.turns + 1;
    const usage = answer.usage === undefined ? record.usage : { promptTokens: record.usage.promptTokens + answer.usage.promptTokens, completionTokens: record.usage.completionTokens + answer.usage.completionTokens, totalTokens: record.usage.totalTokens + answer.usage.totalTokens };
    const toolCalls = answer.message.tool_calls ?? [];
    const assistant: Message = { role: "assistant", content: answer.message.content ?? null, ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }) };
    const { own, client } = splitCalls(toolCalls, record.clientTools);
    const step = { turn, model_ms: modelMs, tools_ms: 0, finish_reason: answer.finishReason, calls: client.map((call) => ({ id: call.id, tool: nameOf(call), status: "client" as const, error_code: null, duration_ms: 0 })) };
    record = { ...record, turns: turn, usage, updatedAt: Date.now(), steps: [...record.steps, step] };
    this.#store.appendMessages([assistant]);
    this.#emit("model.turn", { turn, content: assistant.content, tool_calls: toolCalls, finish_reason: answer.finishReason, usage: answer.usage ?? null });

    if (own.length === 0) {
      const fields = client.length === 0 ? { answer: typeof assistant.content === "string" ? assistant.content : "", finishReason: answer.finishReason } : { clientToolCalls: client, finishReason: "tool_calls" };
      return void (await this.#finish(record, "completed", fields));
    }
    if (record.toolCalls + own.length > record.limits.maxToolCalls) {
      return void (await this.#finish(record, "limit_reached", { error: { code: "MAX_TOOL_CALLS", message: `The run may make ${record.limits.maxToolCalls} tool calls; this turn's ${own.length} would pass it.` } }));
    }
    // Stored before any call runs: what a restart finds still in flight was cut short.
    record = { ...record, toolCalls: record.toolCalls + own.length, inflight: own.map((call) => ({ id: call.id, tool: nameOf(call) })) };
    this.#store.save(record);

    const toolsStarted = Date.now();
    const outcomes = await this.gateway.serve(own.map(callInputOf), scope);
    const after = this.#store.record() ?? record;
    const calls = outcomes.map(stepCallOf);
    const pending = outcomes.flatMap((outcome) => pendingOf(outcome) ?? []);
    const held = outcomes.map((outcome) => ({ callId: outcome.callId, content: outcome.status === "pending_approval" ? null : outcome.content }));
    const steps = after.steps.map((s) => (s.turn === turn ? { ...s, tools_ms: Date.now() - toolsStarted, calls: [...calls, ...s.calls] } : s));
    record = { ...after, inflight: [], steps, pending, held, clientToolCalls: client, updatedAt: Date.now() };
    outcomes.forEach((outcome, i) => {
      const call = calls[i];
      if (call === undefined) return;
      if (outcome.status === "pending_approval") this.#emit("approval.pending", { call_id: call.id, tool: call.tool, approval: call.approval ?? null });
      else this.#emit("tool.result", { ...call, content: outcome.content });
    });
    if (isTerminal(after.status)) return void this.#store.save(record);
    if (pending.length > 0) {
      record = { ...record, status: "awaiting_approval" };
      this.#store.save(record);
      await this.#setFallbackAlarm(record);
      await writeRunIndex(this.env.DB, record);
      return;
    }
    await this.#release(record);
  }

  /**
   * The step's scope and the tools offered to the model: built once, then reused by the next
   * steps for RUN_ACCESS_TTL_MS, the bound a key's revocation has on reaching a run anyway. A run
   * steps in a loop, and rebuilding both (toolsets resolved, access compiled, every definition
   * serialised and parsed) on each turn cost more than the turn's call.
   */
  async #open(record: RunRecord): Promise<StepTools | { ok: false; message: string }> {
    const reused = this.#opened;
    if (reused !== undefined && Date.now() - reused.at < RUN_ACCESS_TTL_MS) return reused;
    const opened = await this.gateway.open(this.env, record, (promise) => void this.#background.push(promise));
    if (!opened.ok) return opened;
    const tools = [...(await this.gateway.tools(opened.scope, record)), ...record.clientTools];
    this.#opened = { ok: true, scope: opened.scope, tools, at: Date.now() };
    return this.#opened;
  }

  /** No call waits: the held tool messages go into the transcript in call order, and the run goes on. */
  async #release(record: RunRecord): Promise<void> {
    this.#store.appendMessages(record.held.map((h): Message => ({ role: "tool", tool_call_id: h.callId, content: h.content ?? "" })));
    const client = record.clientToolCalls;
    const next: RunRecord = { ...record, status: "running", held: [], pending: [], updatedAt: Date.now() };
    if (client.length > 0) return void (await this.#finish(next, "completed", { clientToolCalls: client, finishReason: "tool_calls" }));
    this.#store.save({ ...next, nextStepAt: Date.now() });
    if (!this.#stepping) await this.ctx.storage.setAlarm(Date.now());
    if (record.status !== "running") await writeRunIndex(this.env.DB, next);
  }

  /** Applies settled approvals to the held results; releases the step when none waits. */
  async #applySettled(record: RunRecord, views: readonly ApprovalView[]): Promise<void> {
    let held = record.held;
    let pending = record.pending;
    for (const view of views) {
      if (!isSettled(view) || view.result === undefined) continue;
      const waiting = pending.find((p) => p.approvalId === view.id);
      if (waiting === undefined) continue;
      const content = view.result.content;
      held = held.map((h) => (h.callId === waiting.callId ? { ...h, content } : h));
      pending = pending.filter((p) => p !== waiting);
      this.#emit("approval.settled", { call_id: waiting.callId, tool: waiting.tool, approval_id: view.id, status: view.status, result_status: view.result.status, error_code: view.result.errorCode, content });
    }
    const next = { ...record, held, pending, updatedAt: Date.now() };
    if (pending.length > 0) {
      this.#store.save(next);
      await this.#setFallbackAlarm(next);
      return;
    }
    await this.#release(next);
  }

  /** The alarm's fallback: reads every waiting approval from its Session object (the truth). */
  async #refreshPending(record: RunRecord): Promise<void> {
    if (Date.now() >= record.limits.deadlineAt) return void (await this.#finish(record, "limit_reached", { error: { code: "RUN_DEADLINE", message: "The run's deadline passed while a call waited for approval." } }));
    const session = sessionStub(this.env, record.sessionId);
    const views = await Promise.all(record.pending.map((p) => session.get(p.approvalId, record.sessionId)));
    await this.#applySettled(record, views.flatMap((v) => (v === undefined ? [] : [v])));
  }

  async #setFallbackAlarm(record: RunRecord): Promise<void> {
    const latest = Math.max(...record.pending.map((p) => p.expiresAt));
    await this.ctx.storage.setAlarm(Math.min(latest + WAKE_FALLBACK_MS, record.limits.deadlineAt));
  }

  /** Calls a dead predecessor left in flight: each gets run_interrupted, none runs again. */
  #recoverInflight(record: RunRecord): RunRecord {
    const held = record.inflight.map((call) => ({ callId: call.id, content: outcomeOfFailure(call.tool, call.id, { kind: "run_interrupted", name: call.tool, runId: record.id }, {}).content }));
    for (const call of record.inflight) this.#emit("tool.result", { id: call.id, tool: call.tool, status: "error", error_code: "EXECUTION_FAILED", duration_ms: 0, interrupted: true });
    const recovered: RunRecord = { ...record, inflight: [], held, pending: [] };
    this.#store.appendMessages(held.map((h): Message => ({ role: "tool", tool_call_id: h.callId, content: h.content })));
    const next = { ...recovered, held: [] };
    this.#store.save(next);
    return next;
  }

  #limitReached(record: RunRecord): { code: string; message: string } | undefined {
    if (Date.now() >= record.limits.deadlineAt) return { code: "RUN_DEADLINE", message: `The run's deadline (${new Date(record.limits.deadlineAt).toISOString()}) passed.` };
    if (record.turns >= record.limits.maxTurns) return { code: "MAX_TURNS", message: `The model took ${record.turns} turns without a final answer (max_turns ${record.limits.maxTurns}).` };
    const budget = record.limits.tokenBudget;
    if (budget !== undefined && record.usage.totalTokens >= budget) return { code: "TOKEN_BUDGET", message: `The run used ${record.usage.totalTokens} tokens; its budget is ${budget}.` };
    return undefined;
  }

  async #finish(record: RunRecord, status: RunStatus, fields: Partial<Pick<RunRecord, "answer" | "error" | "clientToolCalls" | "finishReason">>): Promise<RunRecord> {
    const done: RunRecord = { ...record, ...fields, status, nextStepAt: null, updatedAt: Date.now() };
    this.#store.save(done);
    this.#emit("run.finished", { status, answer: done.answer, finish_reason: done.finishReason, client_tool_calls: done.clientToolCalls, error: done.error, usage: done.usage, turns: done.turns, tool_calls: done.toolCalls });
    // A webhook run's alarm first stands behind its end notice (set before the send: if this
    // instance dies before the queue takes it, the alarm sends it); #expire then sets retention's.
    await this.ctx.storage.setAlarm(done.hook === undefined ? expiresAt(this.env, done) : Date.now() + HOOK_NOTICE_RETRY_MS);
    await writeRunIndex(this.env.DB, done);
    if (done.hook !== undefined) await this.#tellHook(done);
    return this.#store.record() ?? done;
  }

  /** Queues the `run_finished` notice to the delivery behind the run; a refused send waits for the alarm. */
  async #tellHook(record: RunRecord): Promise<void> {
    if (record.hook === undefined) return;
    const notice: RunFinishedMessage = { kind: "run_finished", deliveryId: record.hook.deliveryId, runId: record.id };
    try {
      await this.env.HOOKS_QUEUE.send(notice, { contentType: "json" });
      this.#store.save({ ...(this.#store.record() ?? record), hookNotified: true });
    } catch (error) {
      console.warn(`run ${record.id}: the end notice to delivery ${record.hook.deliveryId} was not queued, the alarm retries: ${String(error)}`);
      await this.ctx.storage.setAlarm(Date.now() + HOOK_NOTICE_RETRY_MS);
    }
  }

  /** A finished run's alarm: past its retention, the object's storage goes (the cron deletes its D1 row). */
  async #expire(record: RunRecord): Promise<void> {
    const at = expiresAt(this.env, record);
    if (Date.now() < at) return void (await this.ctx.storage.setAlarm(at));
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // deleteAll drops the tables too; this instance may still be asked about the run.
    this.ctx.storage.sql.exec(RUN_SCHEMA_SQL);
    this.#store.forget();
    this.#opened = undefined;
  }

  #emit(type: RunEventType, data: Record<string, unknown>): void {
    this.#broadcast(this.#store.appendEvent(type, data));
  }

  /** Hands an event to this instance's readers; a `delta` goes only here, never to storage. */
  #broadcast(event: RunEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }
}
