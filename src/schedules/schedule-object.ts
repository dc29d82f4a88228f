/**
 * One Durable Object per schedule (`idFromName(scheduleId)`): its record and firing log in the
 * object's storage (schedule-store.ts), its next firing as the object's alarm. Each firing starts
 * a durable agent run through `startRun` as the schedule's key, with the run id derived from the
 * schedule and the firing time (`firingRunId`).
 *
 * Exactly once: a firing is stored (`firing`, its log entry and the next firing time, one put)
 * before its run is started, and cleared after. An instance that dies between the two leaves the
 * firing stored; the alarm runs again (the runtime retries an alarm whose handler did not finish,
 * and a guard alarm is set before the start) and starts the same run id, and a Run object whose
 * run exists returns it rather than starting another. So a restart never fires twice, and never
 * drops a firing without a trace.
 *
 * Catch-up: when the alarm runs after one or more firing times passed (the object was down, or
 * the platform delayed it), only the latest starts, marked late when it is more than
 * LATE_AFTER_MS behind; the earlier ones are logged `skipped`. A schedule never floods its key
 * with a backlog of runs.
 *
 * Overlap: a firing while the previous firing's run has not ended is `skip`ped, or with `queue`
 * waits (at most one) and starts when that run ends. The Run object reports its end
 * (`runFinished`); a report that was lost is made up at the next firing, which reads the run.
 */
import { DurableObject } from "cloudflare:workers";
import type { RunSnapshot } from "../agent/run-object.ts";
import { runStub } from "../agent/run-stub.ts";
import { isTerminal } from "../agent/run-types.ts";
import { currentPrincipal } from "../approvals/requester-access.ts";
import { describeRequestFailure } from "../http/request-failure.ts";
import { missedFirings } from "./missed-firings.ts";
import { sendDueCallbacks } from "./schedule-callback.ts";
import { countFailure } from "./schedule-failure.ts";
import { firingEntry, storedFiring } from "./schedule-firing.ts";
import { deleteScheduleIndex, writeScheduleIndex } from "./schedule-index.ts";
import { ScheduleStore } from "./schedule-store.ts";
import { dueFirings, nextFiring } from "./schedule-timing.ts";
import type { FiringEntry, RunEnd, ScheduleRecord, ScheduleView } from "./schedule-types.ts";
import { startFiringRun } from "./start-firing-run.ts";

/** A firing started more than this after its time is marked late. */
export const LATE_AFTER_MS = 60_000;
/** Skipped firings of one catch-up written to the log one by one; more are summed up in one note. */
const SKIPS_LOGGED = 10;
/** When an interrupted start is tried again if the runtime's own alarm retry does not come first. */
const START_GUARD_MS = 30_000;

export class ScheduleObject extends DurableObject<Env> {
  readonly #store = new ScheduleStore(this.ctx.storage);

  /** Stores a new schedule and sets its first firing; a second create of the same id returns the first. */
  async create(record: ScheduleRecord): Promise<ScheduleRecord> {
    const existing = await this.#store.record();
    if (existing !== undefined) return existing;
    await this.#store.save(record);
    if (record.nextFireAt !== null) await this.ctx.storage.setAlarm(record.nextFireAt);
    await writeScheduleIndex(this.env.DB, record);
    return record;
  }

  /** The schedule and its firing log, or undefined when there is none. */
  async view(): Promise<ScheduleView | undefined> {
    const record = await this.#store.record();
    return record === undefined ? undefined : { record, firings: await this.#store.firings() };
  }

  /** Stops firing until resumed; a run in progress goes on, a queued firing is dropped. */
  async pause(reason: string): Promise<ScheduleView | undefined> {
    const record = await this.#store.record();
    if (record === undefined) return undefined;
    if (record.status !== "active") return this.view();
    const dropped = record.queuedAt === null ? [] : [firingEntry(record.queuedAt, "skipped", { note: "queued, then the schedule was paused" })];
    await this.#update({ ...record, status: "paused", statusReason: reason, nextFireAt: null, queuedAt: null }, dropped);
    return this.view();
  }

  /**
   * Fires again from the next firing time after now (firings while paused are not made up). A
   * stopped schedule's key is checked first: one that still may not act keeps it stopped.
   */
  async resume(): Promise<{ ok: true; view: ScheduleView } | { ok: false; reason: string } | undefined> {
    const record = await this.#store.record();
    if (record === undefined) return undefined;
    if (record.status !== "active") {
      const principal = await currentPrincipal(this.env, record.keyId);
      if (!("keyId" in principal)) return { ok: false, reason: this.#keyRefusal(record, principal.rule) };
      const now = Date.now();
      const next = nextFiring(record.trigger, record.timezone, record.anchorAt, now);
      await this.#update({ ...record, status: "active", statusReason: null, nextFireAt: next, consecutiveFailures: 0 });
    }
    const view = await this.view();
    return view === undefined ? undefined : { ok: true, view };
  }

  /** Deletes the schedule: its storage, alarm and index row. A run in progress goes on to its end. */
  async remove(): Promise<boolean> {
    const record = await this.#store.record();
    if (record === undefined) return false;
    await this.#store.clear();
    await deleteScheduleIndex(this.env.DB, record.id);
    return true;
  }

  /** Called by a firing's Run object when the run ends. */
  async runFinished(end: RunEnd): Promise<void> {
    await this.#settle(end);
  }

  override async alarm(): Promise<void> {
    let record = await this.#store.record();
    if (record === undefined) return;
    if (record.firing !== null) record = await this.#start(record);
    await sendDueCallbacks(this.env, this.#store, record);
    record = (await this.#store.record()) ?? record;
    if (record.status === "active" && record.nextFireAt !== null && record.nextFireAt <= Date.now()) await this.#fire(record);
    await this.#setAlarm();
  }

  /** The alarm at a firing time: catch-up, the key, overlap, then the run. */
  async #fire(before: ScheduleRecord): Promise<void> {
    const now = Date.now();
    const due = dueFirings(before.trigger, before.timezone, before.anchorAt, before.nextFireAt ?? now, now, SKIPS_LOGGED);
    if (due === undefined) return;
    const missed = missedFirings(due);
    let record = { ...before, nextFireAt: due.next };
    if (record.currentRunId !== null) record = await this.#reconcile(record);
    const principal = await currentPrincipal(this.env, record.keyId);
    if (!("keyId" in principal)) {
      const reason = this.#keyRefusal(record, principal.rule);
      const entry = firingEntry(due.fire, "not_started", { note: reason });
      return this.#update({ ...record, status: "stopped", statusReason: reason, nextFireAt: null, queuedAt: null }, [...missed, entry]);
    }
    const late = now - due.fire > LATE_AFTER_MS;
    if (record.currentRunId !== null) {
      const going = `the previous firing's run ${record.currentRunId} was still going`;
      if (record.overlap === "queue" && record.queuedAt === null)
        return this.#update({ ...record, queuedAt: due.fire }, [...missed, firingEntry(due.fire, "queued", { note: `${going}; starts when it ends`, late })]);
      const why = record.overlap === "queue" ? `${going} and a firing was already queued (overlap: queue holds one)` : `${going} (overlap: skip)`;
      return this.#update(record, [...missed, firingEntry(due.fire, "skipped", { note: why, late })]);
    }
    await this.#begin(record, due.fire, late, missed);
  }

  /** Stores the firing with its log entry (one put), then starts its run. */
  async #begin(record: ScheduleRecord, at: number, late: boolean, entries: FiringEntry[] = []): Promise<void> {
    const firing = storedFiring(record, at, late, Date.now());
    await this.#store.save(firing.record, [...entries, firing.entry]);
    await this.ctx.storage.setAlarm(Date.now() + START_GUARD_MS);
    await this.#start(firing.record);
  }

  /** Starts the stored firing's run (again, after a restart: the same id finds the first). */
  async #start(record: ScheduleRecord): Promise<ScheduleRecord> {
    const firing = record.firing;
    if (firing === null) return record;
    const started = await startFiringRun(this.env, record, firing.runId);
    const current = (await this.#store.record()) ?? record;
    if (!started.ok) {
      const { body } = describeRequestFailure(started.failure);
      const entry = firingEntry(firing.at, "not_started", { note: `${body.error_code}: ${body.error}`, late: firing.late });
      return this.#failed({ ...current, firing: null, currentRunId: null }, entry, `the run could not start (${body.error_code})`);
    }
    const cleared = { ...current, firing: null };
    await this.#update(cleared);
    // A run that had already ended (a restart after its end) is settled now: its report may be lost.
    if (isTerminal(started.record.status)) await this.#settle({ runId: firing.runId, status: started.record.status });
    return (await this.#store.record()) ?? cleared;
  }

  /** Records how a firing's run ended: the failure count, the callback, and a queued firing's start. */
  async #settle(end: RunEnd): Promise<void> {
    const record = await this.#store.record();
    if (record === undefined) return;
    const entry = (await this.#store.firings()).find((e) => e.runId === end.runId);
    if (entry === undefined || entry.runStatus !== null) {
      // Settled before (a report and a reconcile, or a restart replaying a start): only let go of the run.
      if (record.currentRunId === end.runId) await this.#update({ ...record, currentRunId: null });
      return;
    }
    const callback = record.delivery.kind === "webhook" ? { status: "pending" as const, detail: null, attempts: 0, nextAt: Date.now() } : undefined;
    const settled: FiringEntry = { ...entry, runStatus: end.status, ...(callback === undefined ? {} : { callback }) };
    const next = { ...record, currentRunId: record.currentRunId === end.runId ? null : record.currentRunId };
    if (end.status === "completed") await this.#update({ ...next, consecutiveFailures: 0 }, [settled]);
    else await this.#failed(next, settled, `run ${end.runId} ended ${end.status}`);
    const after = await this.#store.record();
    if (after?.queuedAt != null && after.currentRunId === null && after.status === "active") {
      await this.#begin({ ...after, queuedAt: null }, after.queuedAt, Date.now() - after.queuedAt > LATE_AFTER_MS);
    }
    await this.#setAlarm();
  }

  /** A firing that did not complete: counted, and the tenth in a row pauses the schedule. */
  async #failed(record: ScheduleRecord, entry: FiringEntry, what: string): Promise<ScheduleRecord> {
    const next = countFailure(record, what);
    await this.#update(next, [entry]);
    return next;
  }

  /** The current run, read from its object: if it ended and its report never came, it is settled now. */
  async #reconcile(record: ScheduleRecord): Promise<ScheduleRecord> {
    const runId = record.currentRunId;
    if (runId === null) return record;
    const snapshot = (await runStub(this.env, runId).snapshot()) as RunSnapshot | undefined;
    const status = snapshot?.record.status;
    if (status !== undefined && !isTerminal(status)) return record;
    await this.#store.save(record);
    await this.#settle({ runId, status: status ?? "failed" });
    return (await this.#store.record()) ?? record;
  }

  /** The alarm at the nearest of the next firing and a pending callback's next attempt. */
  async #setAlarm(): Promise<void> {
    const record = await this.#store.record();
    if (record === undefined) return;
    const times = (await this.#store.firings()).flatMap((e) => (e.callback?.status === "pending" ? [e.callback.nextAt ?? Date.now()] : []));
    if (record.firing !== null) times.push(Date.now() + START_GUARD_MS);
    if (record.status === "active" && record.nextFireAt !== null) times.push(record.nextFireAt);
    if (times.length === 0) return void (await this.ctx.storage.deleteAlarm());
    await this.ctx.storage.setAlarm(Math.min(...times));
  }

  /** Saves the record (and log entries) with a new `updatedAt`, and its index row. */
  async #update(record: ScheduleRecord, entries: readonly FiringEntry[] = []): Promise<void> {
    const next = { ...record, updatedAt: Date.now() };
    await this.#store.save(next, entries);
    await writeScheduleIndex(this.env.DB, next);
    await this.#setAlarm();
  }

  #keyRefusal(record: ScheduleRecord, rule: string): string {
    return `Stopped: the key ${record.keyId} may no longer act (${rule}), so the firing did not start. Resume it once the key may act again, or delete it and create one with another key.`;
  }
}
