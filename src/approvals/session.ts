/**
 * One Durable Object per session (`idFromName(sessionId)`): the session's pending approvals and session-wide grants, in the object's SQLite
 * storage so they survive eviction and restarts, and each calling key's `todo` list for the session (src/todo/todo-list.ts). A Durable Object
 * runs one event at a time and SQL calls are synchronous, so every check-and-set below (ask once per tool call id, first decision wins,
 * decision or expiry) is written without an `await` between the check and the write: nothing can interleave. Exactly-once: `run_state =
 * 'running'` is stored in the same step as the approval, before the handler starts; a fresh instance that finds a run still marked running
 * knows its predecessor died mid-run and records the run as interrupted instead of running it a second time. An approved call runs with the
 * requester's access as it is at approval time (requester-access.ts), and an approval asked for by a webhook delivery tells the delivery when
 * it settles, through an outbox (SESSION_HOOK_NOTICES_TABLE) drained into the hooks queue.
 */
import { DurableObject } from "cloudflare:workers";
import { canonicalJson } from "../audit/canonical-json.ts";
import { redactSecrets } from "../audit/redact-secrets.ts";
import { sha256Hex } from "../crypto/sha256.ts";
import type { CallOutcome } from "../pipeline/types.ts";
import { withRequestId } from "../tracing/request-context.ts";
import { recordApprovalAudit } from "./approval-audit.ts";
import { notifyApprovalRequested } from "./approval-notify.ts";
import { type ApprovalRow, pendingRow, toApprovalView } from "./approval-row.ts";
import * as store from "./approval-store.ts";
import { decidedRow, doneRow, expiredRow, interruptedOutcome } from "./approval-transitions.ts";
import { approvalPageUrl } from "./approval-url.ts";
import { type ApprovalView, isSettled } from "./approval-view.ts";
import { runApprovedCall } from "./approved-call.ts";
import { ChangeWaiters } from "./change-waiters.ts";
import { publishApproval } from "./publish-approval.ts";
import { noteRunWaiting } from "./run-wakeups.ts";
import { scheduleSessionAlarm } from "./session-alarm.ts";
import type {
  ApprovalRequest,
  DecisionAnswer,
  DecisionInput,
  RequestAnswer,
  RunApproved,
  SessionApi,
  SubscriptionAnswer,
  SubscriptionChange,
  TodoAnswer,
  TodoUpdate,
} from "./session-api.ts";
import { SESSION_SCHEMA_SQL } from "./session-schema.ts";
import { sessionSubscriptions } from "./session-subscriptions.ts";
import { sessionTodo } from "./session-todo.ts";
import { noteSettled, sendSettledNotices } from "./settled-notices.ts";

/**
 * The object's code; the Worker entry exports it as `Session` with `runApproved` (run-approved.ts)
 * filled in by the composition root, so this layer never imports the pipeline it feeds.
 */
export abstract class SessionObject extends DurableObject<Env> implements SessionApi {
  protected abstract readonly runApproved: RunApproved;

  /** Long-poll waiters per approval id, woken on every change of it. */
  readonly #waiters = new ChangeWaiters();
  /**
   * Index and audit writes of changes made inside a synchronous step (an expiry found while
   * reading); the public method that made them awaits them before it answers, so they are not
   * left to waitUntil (which an alarm's end does not wait for).
   */
  #writes: Promise<unknown>[] = [];

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(SESSION_SCHEMA_SQL);
    this.#recoverInterruptedRuns();
  }

  /** Asks for approval of a call, or answers from a grant or an earlier request with the same call id. */
  async request(input: ApprovalRequest): Promise<RequestAnswer> {
    const { bindingSha256 } = input;
    const now = Date.now();
    const { sql } = this.ctx.storage;
    const earlier = store.findApprovalByCallId(sql, input);
    if (earlier !== undefined) {
      // One id, one request (as idempotency keys work): answering a different request with the
      // first one's outcome would tell the model an action happened that did not.
      if (earlier.tool !== input.tool || earlier.binding_sha256 !== bindingSha256)
        return { kind: "call_id_reused", toolCallId: input.toolCallId, firstTool: earlier.tool };
      return this.#answerAgain(this.#expireIfDue(earlier, now));
    }
    const same = input.matchArguments ? store.findApprovalByBinding(sql, input) : undefined;
    if (same !== undefined) {
      const current = this.#expireIfDue(same, now);
      // Expiry is nobody's decision: asking again is what the caller needs then.
      if (current.status !== "expired") return this.#answerAgain(current);
    }
    const grant = store.findGrant(sql, input.tool, input.requestedBy);
    if (grant !== undefined) return { kind: "granted", approvalId: grant };

    // What a person is shown: secrets redacted. Only a new approval needs it.
    const shown = canonicalJson(redactSecrets(input.arguments));
    const row = pendingRow({ ...input, shown, argumentsSha256: sha256Hex(shown), now });
    store.insertApproval(sql, row);
    if (input.runId !== undefined) noteRunWaiting(sql, row.id, input.runId);
    await this.#scheduleAlarm();
    await Promise.all([publishApproval(this.env.DB, row), this.#flushWrites()]);
    const approval = toApprovalView(row);
    if (input.notify !== undefined) {
      const stillPending = () => store.findApproval(sql, row.id, row.session_id)?.status === "pending";
      this.ctx.waitUntil(notifyApprovalRequested(input.notify, approval, approvalPageUrl(input.origin, row.id), input.outboundAllow, stillPending));
    }
    return { kind: "pending", approval };
  }

  /** A request asked before is answered with its approval as it is now. */
  async #answerAgain(row: ApprovalRow): Promise<RequestAnswer> {
    await this.#flushWrites();
    const approval = toApprovalView(row);
    return isSettled(approval) ? { kind: "settled", approval } : { kind: "pending", approval };
  }

  /** One approval of this session, or undefined (also for another session's id). */
  async get(id: string, sessionId: string): Promise<ApprovalView | undefined> {
    const row = store.findApproval(this.ctx.storage.sql, id, sessionId);
    if (row === undefined) return undefined;
    const current = this.#expireIfDue(row, Date.now());
    await this.#flushWrites();
    return toApprovalView(current);
  }

  /** Waits up to `timeoutMs` for the approval to settle, then returns it as it is. */
  async wait(id: string, sessionId: string, timeoutMs: number): Promise<ApprovalView | undefined> {
    const deadline = Date.now() + timeoutMs;
    let view = await this.get(id, sessionId);
    // Woken on every change, and an approval changes twice (approved, then run): loop until final.
    while (view !== undefined && !isSettled(view) && Date.now() < deadline) {
      await this.#waiters.next(id, deadline - Date.now());
      view = await this.get(id, sessionId);
    }
    return view;
  }

  /**
   * Decides a pending approval. The first decision wins; a later one (or one after expiry) gets
   * the current state. An approval runs the call once, before this returns.
   */
  decide(input: DecisionInput): Promise<DecisionAnswer> {
    // RPC carries no async context: the deciding request's id is set again here, for the run's
    // audit record and log lines.
    return input.requestId === undefined ? this.#decide(input) : withRequestId(input.requestId, () => this.#decide(input));
  }

  async #decide(input: DecisionInput): Promise<DecisionAnswer> {
    const found = store.findApproval(this.ctx.storage.sql, input.id, input.sessionId);
    if (found === undefined) {
      await this.#flushWrites();
      return { ok: false, kind: "not_found" };
    }
    const now = Date.now();
    const row = this.#expireIfDue(found, now);
    if (row.status !== "pending") {
      await this.#flushWrites();
      return { ok: false, kind: "conflict", approval: toApprovalView(row) };
    }

    const { row: decided, denial } = decidedRow(row, input, now);
    store.saveApproval(this.ctx.storage.sql, decided);
    if (denial !== undefined) noteSettled(this.ctx.storage.sql, decided);
    if (input.decision === "approve" && input.scope === "session") store.insertGrant(this.ctx.storage.sql, row, input.decidedBy, now);
    this.#waiters.wake(row.id);
    await this.#scheduleAlarm();
    if (denial !== undefined) {
      await Promise.all([publishApproval(this.env.DB, decided), this.#audit(decided, denial), this.#flushWrites()]);
      return { ok: true, approval: toApprovalView(decided) };
    }
    await Promise.all([publishApproval(this.env.DB, decided), this.#flushWrites()]);
    return { ok: true, approval: toApprovalView(await this.#run(decided)) };
  }

  /** Reads or changes the calling key's todo list in this session (session-todo.ts). */
  async todo(update: TodoUpdate): Promise<TodoAnswer> {
    return sessionTodo(this.ctx.storage.kv, update);
  }

  /** Changes or reads the calling key's MCP resource subscriptions in this session. */
  async subscriptions(change: SubscriptionChange): Promise<SubscriptionAnswer> {
    return sessionSubscriptions(this.ctx.storage.kv, change);
  }

  async endGrants(keyId: string): Promise<number> {
    return store.deleteGrants(this.ctx.storage.sql, keyId);
  }

  /** Expires every pending approval whose time has come. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const row of store.dueApprovals(this.ctx.storage.sql, now)) this.#expireIfDue(row, now);
    await this.#scheduleAlarm();
    await this.#flushWrites();
  }

  /** Runs an approved call (approved-call.ts) and records its outcome. */
  async #run(row: ApprovalRow): Promise<ApprovalRow> {
    const outcome = await runApprovedCall(this.runApproved, this.env, row, (promise) => this.ctx.waitUntil(promise));
    const done = doneRow(row, outcome);
    store.saveApproval(this.ctx.storage.sql, done);
    const noted = noteSettled(this.ctx.storage.sql, done);
    this.#waiters.wake(row.id);
    if (noted) await this.#scheduleAlarm();
    await Promise.all([publishApproval(this.env.DB, done), this.#audit(done, outcome)]);
    await sendSettledNotices(this.ctx.storage, this.env);
    return done;
  }

  /**
   * A run this fresh instance finds marked running was cut short with its predecessor (eviction,
   * restart, crash). Whether its effect happened is unknown, so it is recorded as interrupted and
   * never run again: a second run is worse than a lost result for the actions approvals guard.
   */
  #recoverInterruptedRuns(): void {
    for (const row of store.runningApprovals(this.ctx.storage.sql)) {
      const outcome = interruptedOutcome(row);
      const done = doneRow(row, outcome);
      store.saveApproval(this.ctx.storage.sql, done);
      noteSettled(this.ctx.storage.sql, done);
      this.#writes.push(publishApproval(this.env.DB, done), this.#audit(done, outcome));
    }
  }

  /** Expires a pending approval past its time, in the same synchronous step as the check. */
  #expireIfDue(row: ApprovalRow, now: number): ApprovalRow {
    if (row.status !== "pending" || row.expires_at > now) return row;
    const { row: expired, outcome } = expiredRow(row, now);
    store.saveApproval(this.ctx.storage.sql, expired);
    noteSettled(this.ctx.storage.sql, expired);
    this.#waiters.wake(row.id);
    this.#writes.push(publishApproval(this.env.DB, expired), this.#audit(expired, outcome));
    return expired;
  }

  /** Flushes the pending index and audit writes, then any hook notice the change left. */
  async #flushWrites(): Promise<void> {
    const writes = this.#writes;
    this.#writes = [];
    await Promise.all(writes);
    await sendSettledNotices(this.ctx.storage, this.env);
  }

  /** The alarm is always set to the next expiry of a pending approval or retry of a hook notice. */
  async #scheduleAlarm(): Promise<void> {
    await scheduleSessionAlarm(this.ctx.storage);
  }

  #audit(row: ApprovalRow, outcome: CallOutcome): Promise<void> {
    return recordApprovalAudit(this.env, row, outcome);
  }
}
