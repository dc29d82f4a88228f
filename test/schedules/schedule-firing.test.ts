/**
 * Scheduled runs end to end: a firing starts a durable run through the scripted model, stores
 * its outcome, calls back signed, survives restarts without firing twice, keeps its overlap
 * policy, catches up once after downtime, and pauses itself after ten failed runs in a row.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FAILURES_TO_PAUSE } from "../../src/schedules/schedule-failure.ts";
import { firingRunId, storedFiring } from "../../src/schedules/schedule-firing.ts";
import { verifySignature } from "../../src/webhooks/verify-signature.ts";
import { readInbox } from "../support/inbox.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil } from "../support/runs.ts";
import { createSchedule, editSchedule, fireAt, getSchedule, scheduleObject, scheduleUntil } from "../support/schedules.ts";
import { TEST_WEBHOOK_SECRET } from "../support/test-env.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const HOUR = 3_600_000;
const settled = (s: { firings: { run_status: string | null; outcome: string }[] }) =>
  s.firings.length > 0 && s.firings.every((f) => f.outcome !== "started" || f.run_status !== null);

describe("a firing", () => {
  it("starts a run as the schedule's key with the prompt, and stores its outcome in the run and the firing log", async () => {
    const script = await scriptModel([{ content: "Digest: nothing failed." }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} digest`, every_seconds: 3600, name: "digest" });
    expect(schedule).toMatchObject({ status: "active", every_seconds: 3600, timezone: "UTC", overlap: "skip", key_id: "admin-token" });
    expect(Date.parse(schedule.next_fire_at ?? "")).toBeGreaterThan(Date.now() + HOUR - 60_000);

    const at = Date.now() - 1_000;
    await fireAt(schedule.id, at);
    const runId = firingRunId(schedule.id, at);
    const run = await runUntil(runId, FINISHED);
    expect(run).toMatchObject({ status: "completed", answer: "Digest: nothing failed." });
    const after = await scheduleUntil(schedule.id, settled);
    expect(after.firings).toEqual([expect.objectContaining({ outcome: "started", run_id: runId, run_status: "completed", late: false, callback: null })]);
    expect(after).toMatchObject({ current_run_id: null, consecutive_failures: 0, status: "active" });
    const { requests } = await sentToModel(script);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.messages).toEqual([{ role: "user", content: `${marker(script)} digest` }]);
  });

  it("POSTs the outcome to the callback URL, signed with the named secret so the receiver can verify it", async () => {
    const script = await scriptModel([{ content: "called back" }]);
    const inbox = `sched-cb-${crypto.randomUUID()}`;
    const schedule = await createSchedule({
      prompt: `${marker(script)} report`,
      cron: "0 9 * * 1-5",
      timezone: "Europe/Berlin",
      callback: { url: `http://upstream.test/inbox/${inbox}`, secret: "SCHEDULE_SECRET_TEST" },
    });
    const at = Date.now() - 500;
    await fireAt(schedule.id, at);
    const after = await scheduleUntil(schedule.id, (s) => s.firings[0]?.callback?.status === "delivered");
    expect(after.firings[0]?.callback).toMatchObject({ status: "delivered", attempts: 1 });

    const [message, ...more] = await readInbox(inbox);
    expect(more).toHaveLength(0);
    if (message === undefined) throw new Error("no callback arrived");
    const body = new TextEncoder().encode(message.body);
    const verdict = await verifySignature("hmac", TEST_WEBHOOK_SECRET, body, new Headers(message.headers), Date.now());
    expect(verdict).toMatchObject({ ok: true, deliveryId: firingRunId(schedule.id, at) });
    expect(JSON.parse(message.body)).toEqual({
      schedule_id: schedule.id,
      schedule_name: schedule.name,
      firing_at: new Date(at).toISOString(),
      late: false,
      run_id: firingRunId(schedule.id, at),
      status: "completed",
      answer: "called back",
      error: null,
    });
    const forged = await verifySignature("hmac", "another secret", body, new Headers(message.headers), Date.now());
    expect(forged.ok).toBe(false);
  });
});

describe("restarts", () => {
  it("starts a firing its object stored but died before starting, once, when the alarm runs again", async () => {
    const script = await scriptModel([{ content: "started after the restart" }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} resume`, every_seconds: 3600 });
    const at = Date.now() - 2_000;
    // The state the firing leaves when its instance dies between storing it and starting its run.
    await editSchedule(schedule.id, async (record, store) => {
      const firing = storedFiring(record, at, false, Date.now());
      await store.save(firing.record, [firing.entry]);
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(scheduleObject(schedule.id))).toBe(true);

    const run = await runUntil(firingRunId(schedule.id, at), FINISHED);
    expect(run).toMatchObject({ status: "completed", answer: "started after the restart" });
    const after = await scheduleUntil(schedule.id, settled);
    expect(after.firings).toEqual([expect.objectContaining({ at: new Date(at).toISOString(), outcome: "started", run_status: "completed" })]);
    expect((await sentToModel(script)).requests).toHaveLength(1);
  });

  it("does not fire twice when restarted after the run started but before the firing was cleared", async () => {
    const script = await scriptModel([{ content: "only once" }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} once`, every_seconds: 3600 });
    const at = Date.now() - 3_000;
    await fireAt(schedule.id, at);
    const runId = firingRunId(schedule.id, at);
    const first = await runUntil(runId, FINISHED);
    await scheduleUntil(schedule.id, settled);
    // Back to the moment between the run's start and the firing's clearing, then the instance dies.
    await editSchedule(schedule.id, (record, store) => store.save({ ...storedFiring(record, at, false, Date.now()).record, currentRunId: null }));
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(scheduleObject(schedule.id))).toBe(true);

    const again = await getRun(runId);
    expect(again.status).toBe("completed");
    expect((await sentToModel(script)).requests).toHaveLength(1);
    const after = await getSchedule(schedule.id);
    expect(after.firings).toHaveLength(1);
    expect(after.firings[0]).toMatchObject({ run_id: runId, run_status: "completed" });
    expect(after.current_run_id).toBeNull();
    expect(first.answer).toBe("only once");
  });

  it("after downtime fires once, late, and logs the missed firings before it as skipped", async () => {
    const script = await scriptModel([{ content: "caught up" }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} catch up`, every_seconds: 3600 });
    const anchor = Date.now() - 3.5 * HOUR;
    await fireAt(schedule.id, anchor + HOUR, anchor);
    const latest = anchor + 3 * HOUR;
    await runUntil(firingRunId(schedule.id, latest), FINISHED);
    const after = await scheduleUntil(schedule.id, settled);
    expect(after.firings.map((f) => [f.at, f.outcome, f.late])).toEqual([
      [new Date(latest).toISOString(), "started", true],
      [new Date(anchor + 2 * HOUR).toISOString(), "skipped", false],
      [new Date(anchor + HOUR).toISOString(), "skipped", false],
    ]);
    expect(after.firings[0]?.note).toContain("late");
    expect(after.firings[1]?.note).toContain("missed");
    expect(after.next_fire_at).toBe(new Date(anchor + 4 * HOUR).toISOString());
    expect((await sentToModel(script)).requests).toHaveLength(1);
  });
});

describe("overlap", () => {
  it("skips a firing while the previous run still goes on, with `skip`", async () => {
    const script = await scriptModel([{ content: "slow", delay_ms: 1_500 }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} skip`, every_seconds: 3600, overlap: "skip" });
    const first = Date.now() - 5_000;
    await fireAt(schedule.id, first);
    await fireAt(schedule.id, first + 1_000);
    const during = await getSchedule(schedule.id);
    expect(during.firings[0]).toMatchObject({ outcome: "skipped", note: expect.stringContaining("overlap: skip") });
    await runUntil(firingRunId(schedule.id, first), FINISHED);
    const after = await scheduleUntil(schedule.id, settled);
    expect(after.firings.map((f) => f.outcome)).toEqual(["skipped", "started"]);
    expect((await sentToModel(script)).requests).toHaveLength(1);
  });

  it("queues at most one firing while the previous run goes on, and starts it when that run ends, with `queue`", async () => {
    const script = await scriptModel([{ content: "slow", delay_ms: 1_500 }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} queue`, every_seconds: 3600, overlap: "queue" });
    const first = Date.now() - 5_000;
    await fireAt(schedule.id, first);
    await fireAt(schedule.id, first + 1_000);
    await fireAt(schedule.id, first + 2_000);
    const during = await getSchedule(schedule.id);
    expect(during.firings.map((f) => f.outcome)).toEqual(["skipped", "queued", "started"]);
    expect(during.firings[0]?.note).toContain("already queued");
    expect(during.queued_at).toBe(new Date(first + 1_000).toISOString());

    await runUntil(firingRunId(schedule.id, first), FINISHED);
    const after = await scheduleUntil(
      schedule.id,
      (s) => s.current_run_id === null && s.firings.filter((f) => f.outcome === "started").length === 2 && settled(s),
      15_000,
    );
    expect(after.firings.map((f) => [f.outcome, f.run_status])).toEqual([
      ["skipped", null],
      ["started", "completed"],
      ["started", "completed"],
    ]);
    expect(after.queued_at).toBeNull();
    expect((await sentToModel(script)).requests).toHaveLength(2);
  }, 20_000);
});

describe("failures", () => {
  it(`pauses itself after ${FAILURES_TO_PAUSE} runs in a row did not complete, and says why`, async () => {
    const script = await scriptModel([{ content: "never", fail: Array.from({ length: FAILURES_TO_PAUSE + 2 }, () => ({ status: 400 })) }]);
    const schedule = await createSchedule({ prompt: `${marker(script)} fail`, every_seconds: 3600 });
    const base = Date.now() - 60_000;
    for (let i = 0; i < FAILURES_TO_PAUSE; i++) {
      await fireAt(schedule.id, base + i * 1_000);
      await runUntil(firingRunId(schedule.id, base + i * 1_000), FINISHED);
      await scheduleUntil(schedule.id, (s) => s.firings.length === i + 1 && settled(s));
    }
    const after = await getSchedule(schedule.id);
    expect(after).toMatchObject({ status: "paused", next_fire_at: null, consecutive_failures: FAILURES_TO_PAUSE });
    expect(after.status_reason).toContain(`${FAILURES_TO_PAUSE} firings in a row did not complete`);
    expect(after.firings.every((f) => f.run_status === "failed")).toBe(true);
  }, 30_000);
});
