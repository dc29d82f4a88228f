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
 * Questions: the agent's question (clarify) leaves the run `awaiting_input` until its own
 * principal answers (`answer`) or its deadline passes, which the alarm stands at (run-question.ts).
 *
 * Retention: a finished run sets its alarm RUN_RETENTION_DAYS ahead; that alarm deletes the
 * object's whole storage, after which the object answers as one that never held a run (404).
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalView } from "../approvals/approval-view.ts";
import { newRunRecord } from "./new-run-record.ts";
import { applySettled, refreshPending } from "./run-approval-wait.ts";
import { RunEventHub } from "./run-event-hub.ts";
import { expiresAt } from "./run-expiry.ts";
import { finishRun, tellHook } from "./run-finish.ts";
import { RUN_ACCESS_TTL_MS, type RunGateway } from "./run-gateway.ts";
import type { RunHost, StepTools } from "./run-host.ts";
import { writeRunIndex } from "./run-index.ts";
import { type AnswerRefusal, awaitInput, expireQuestion, takeAnswer } from "./run-question.ts";
import { recoverInflight } from "./run-recovery.ts";
import { runStep } from "./run-step.ts";
import { RunStore } from "./run-store.ts";
import { isTerminal, type Message, type RunRecord, type RunStart } from "./run-types.ts";

/** How long one alarm steps before handing over to the next (an alarm handler's wall time is bounded). */
const STEP_LOOP_MS = 5 * 60_000;

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
  /** Work a step's calls left for after them (their audit records), awaited before the alarm ends. */
  readonly #background: Promise<unknown>[] = [];
  /** Set while the alarm loops over steps: a step that goes on then needs no alarm of its own. */
  #stepping = false;
  /** The last step's scope and tools (#open). */
  #opened: StepTools | undefined;
  readonly #store: RunStore;
  readonly #events: RunEventHub;
  /** What the step, approval-wait and finish modules need of this instance; private methods stay off the RPC surface. */
  readonly #host: RunHost;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RunStore(ctx.storage.sql);
    this.#events = new RunEventHub(this.#store);
    this.#host = {
      env,
      storage: ctx.storage,
      store: this.#store,
      events: this.#events,
      // `gateway` is set by the subclass after this constructor: read it at call time.
      serve: (calls, scope) => this.gateway.serve(calls, scope),
      open: (record) => this.#open(record),
      finish: (record, status, fields) => finishRun(this.#host, record, status, fields),
      release: (record) => this.#release(record),
    };
  }

  /** Creates the run and schedules its first step; a second start of the same id returns the first. */
  async start(start: RunStart): Promise<RunRecord> {
    const existing = this.#store.record();
    if (existing !== undefined) return existing;
    const now = Date.now();
    const { messages, ...rest } = start;
    const record = newRunRecord(rest, now);
    this.#store.save(record);
    this.#store.appendMessages(messages);
    this.#events.emit("run.started", { run_id: record.id, model: record.model.name, session_id: record.sessionId });
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
    return this.#events.wait(timeoutMs);
  }

  /**
   * The run's events after `after`, as NDJSON (one RunEvent a line): those stored, then live ones
   * until the run finishes. `untilApproval` also ends the stream when the run waits on a person.
   */
  async events(after: number, untilApproval = false): Promise<ReadableStream<Uint8Array>> {
    return this.#events.stream(after, untilApproval);
  }

  /**
   * Cancels the run: no further step; a step in progress finishes its calls but the model is not
   * asked again. `message` says why (a webhook re-run superseding it); the caller's cancel by default.
   */
  async cancel(message = "The run was cancelled (POST /v1/runs/{id}/cancel)."): Promise<RunRecord | undefined> {
    const record = this.#store.record();
    if (record === undefined || isTerminal(record.status)) return record;
    await this.ctx.storage.deleteAlarm();
    return finishRun(this.#host, record, "cancelled", { error: { code: "CANCELLED", message } });
  }

  /** Called by the approval's Session object when it settles. */
  async approvalSettled(approvalId: string, approval: ApprovalView): Promise<void> {
    const record = this.#store.record();
    if (record === undefined || record.status !== "awaiting_approval") return;
    if (!record.pending.some((p) => p.approvalId === approvalId)) return;
    await applySettled(this.#host, record, [approval]);
  }

  /**
   * The answer to the run's question (clarify), from `keyId`: undefined when taken, and the run
   * goes on; otherwise why not (another principal's run, no question waiting, a stale one).
   */
  async answer(keyId: string, text: string, callId?: string): Promise<AnswerRefusal | undefined> {
    const record = this.#store.record();
    if (record === undefined) return { kind: "no_run" };
    return takeAnswer(this.#host, record, { keyId, text, callId });
  }

  /**
   * Steps until the run ends, waits on a person, or has stepped for STEP_LOOP_MS. Steps loop
   * inside one alarm rather than setting one per step: an alarm whose handler dies is retried by
   * the runtime, so the loop is as durable, and a step costs no alarm write.
   */
  override async alarm(): Promise<void> {
    let record = this.#store.record();
    if (record === undefined) return;
    if (isTerminal(record.status) && record.hook !== undefined && record.hookNotified !== true) {
      await tellHook(this.#host, record);
      // Queued at last: retention's alarm takes over, or nothing would ever delete the run.
      record = this.#store.record() ?? record;
      if (record.hookNotified !== true) return;
    }
    if (isTerminal(record.status)) return this.#expire(record);
    if (record.inflight.length > 0) record = recoverInflight(this.#host, record);
    const started = Date.now();
    this.#stepping = true;
    try {
      if (record.status === "awaiting_approval") await refreshPending(this.#host, record);
      else if (record.status === "awaiting_input") await expireQuestion(this.#host, record);
      else await runStep(this.#host, record);
      for (;;) {
        record = this.#store.record();
        if (record === undefined || record.status !== "running") break;
        if (Date.now() - started >= STEP_LOOP_MS) {
          await this.ctx.storage.setAlarm(Date.now());
          break;
        }
        await runStep(this.#host, record);
      }
    } finally {
      this.#stepping = false;
      // The step's audit records: an alarm's end does not wait for waitUntil work, so it waits here.
      const background = this.#background.splice(0);
      await Promise.allSettled(background);
    }
  }

  /**
   * The step's scope and the tools offered to the model: built once, then reused by the next
   * steps for RUN_ACCESS_TTL_MS, the bound a key's revocation has on reaching a run anyway. A run
   * steps in a loop, and rebuilding both (toolsets resolved, access compiled, every definition
   * looked up) on each turn cost more than the turn's call.
   */
  async #open(record: RunRecord): Promise<StepTools | { ok: false; message: string }> {
    const reused = this.#opened;
    if (reused !== undefined && Date.now() - reused.at < RUN_ACCESS_TTL_MS) return reused;
    const opened = await this.gateway.open(this.env, record, (promise) => void this.#background.push(promise));
    if (!opened.ok) return opened;
    const tools = [...(await this.gateway.tools(opened.scope, record)), ...record.clientTools.map((tool) => JSON.stringify(tool))];
    this.#opened = { ok: true, scope: opened.scope, tools, at: Date.now() };
    return this.#opened;
  }

  /** No call waits: the held tool messages go into the transcript in call order, and the run goes on. */
  async #release(record: RunRecord): Promise<void> {
    // The step's approvals are settled, and its question is still open: now the run asks it.
    if (record.question !== undefined) return awaitInput(this.#host, { ...record, pending: [] }, record.question);
    this.#store.appendMessages(record.held.map((h): Message => ({ role: "tool", tool_call_id: h.callId, content: h.content ?? "" })));
    const client = record.clientToolCalls;
    const next: RunRecord = { ...record, status: "running", held: [], pending: [], updatedAt: Date.now() };
    if (client.length > 0) return void (await finishRun(this.#host, next, "completed", { clientToolCalls: client, finishReason: "tool_calls" }));
    this.#store.save({ ...next, nextStepAt: Date.now() });
    if (!this.#stepping) await this.ctx.storage.setAlarm(Date.now());
    if (record.status !== "running") await writeRunIndex(this.env.DB, next);
  }

  /** A finished run's alarm: past its retention, the object's storage goes (the cron deletes its D1 row). */
  async #expire(record: RunRecord): Promise<void> {
    const at = expiresAt(this.env, record);
    if (Date.now() < at) return void (await this.ctx.storage.setAlarm(at));
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // deleteAll drops the tables too: this instance, if asked again, finds no run and writes nothing.
    this.#store.forget();
    this.#opened = undefined;
  }
}
