/**
 * /v1/schedules and the `schedule` tool: bad input refused with a named field, a revoked key
 * stops its schedule at the next firing and says why, pause/resume/delete, and a schedule that
 * does not exist for any key but its own (and admins).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callTools, only } from "../approvals/support.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { createSchedule, fireAt, getSchedule, type ScheduleWire, scheduleObject } from "../support/schedules.ts";
import { openaiCall } from "../support/tool-calls.ts";

interface Refusal {
  error: string;
  error_code: string;
  issues?: { path: string; message: string }[];
}

async function refused(body: Record<string, unknown>): Promise<Refusal> {
  const response = await api("/v1/schedules", { body });
  expect(response.status).toBe(400);
  return json<Refusal>(response);
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("bad input", () => {
  it("refuses an expression that fires more often than SCHEDULE_MIN_INTERVAL_SECONDS, naming the gap and the setting", async () => {
    const everySecond = await refused({ prompt: "tick", cron: "* * * * * *" });
    expect(everySecond).toMatchObject({ error_code: "INVALID_REQUEST" });
    expect(everySecond.issues).toEqual([
      { path: "cron", message: expect.stringMatching(/fires 1 s apart.*at most once every 60 s \(SCHEDULE_MIN_INTERVAL_SECONDS\)/) },
    ]);
    // Two firings a second apart once a minute: the closest pair counts, not the average.
    expect((await refused({ prompt: "tick", cron: "0,1 * * * * *" })).issues?.[0]?.path).toBe("cron");
    expect((await refused({ prompt: "tick", every_seconds: 30 })).issues?.[0]).toMatchObject({
      path: "every_seconds",
      message: expect.stringContaining("30 s"),
    });
    expect((await api("/v1/schedules", { body: { prompt: "tick", cron: "* * * * *" } })).status).toBe(201);
  });

  it("names the field of a cron that does not parse, an unknown time zone, both or neither trigger, and an unknown toolset", async () => {
    expect((await refused({ prompt: "x", cron: "every day" })).issues?.[0]).toMatchObject({
      path: "cron",
      message: expect.stringContaining("not a cron expression"),
    });
    expect((await refused({ prompt: "x", cron: "0 9 * * *", timezone: "Mars/Olympus" })).issues?.[0]).toMatchObject({ path: "timezone" });
    expect((await refused({ prompt: "x" })).issues?.[0]?.path).toBe("cron");
    expect((await refused({ prompt: "x", cron: "0 9 * * *", every_seconds: 3600 })).issues?.[0]?.path).toBe("cron");
    expect((await refused({ prompt: "x", every_seconds: 3600, toolsets: ["no-such-toolset"] })).issues?.[0]?.path).toBe("toolsets.0");
  });

  it("refuses a callback URL the outbound guard refuses, and a secret that is not a set SCHEDULE_SECRET_", async () => {
    const base = { prompt: "x", every_seconds: 3600 };
    const local = await refused({ ...base, callback: { url: "http://127.0.0.1:8080/hook", secret: "SCHEDULE_SECRET_TEST" } });
    expect(local.issues?.[0]).toMatchObject({ path: "callback.url", message: expect.stringContaining("outbound guard") });
    const other = await refused({ ...base, callback: { url: "http://upstream.test/inbox/x", secret: "MODEL_API_KEY" } });
    expect(other.issues?.[0]).toMatchObject({ path: "callback.secret", message: expect.stringContaining("SCHEDULE_SECRET_") });
    const unset = await refused({ ...base, callback: { url: "http://upstream.test/inbox/x", secret: "SCHEDULE_SECRET_UNSET" } });
    expect(unset.issues?.[0]).toMatchObject({ path: "callback.secret", message: expect.stringContaining("is not set") });
  });
});

describe("a revoked key", () => {
  it("stops the schedule at its next firing, says why in get and list, and keeps it stopped on resume", async () => {
    const key = await createKey({ name: "sched-revoked", role: "agent" });
    const schedule = await createSchedule({ prompt: "never runs", every_seconds: 3600 }, bearer(key.key));
    expect(schedule.key_id).toBe(key.id);
    expect((await api(`/v1/keys/${key.id}`, { method: "DELETE" })).status).toBe(204);

    await fireAt(schedule.id, Date.now() - 1_000);
    const after = await getSchedule(schedule.id);
    expect(after).toMatchObject({ status: "stopped", next_fire_at: null, current_run_id: null });
    expect(after.status_reason).toContain(`the key ${key.id} may no longer act (requester:revoked)`);
    expect(after.firings[0]).toMatchObject({ outcome: "not_started", run_id: null });
    const listed = await json<{ schedules: ScheduleWire[] }>(await api("/v1/schedules"));
    expect(listed.schedules.find((s) => s.id === schedule.id)).toMatchObject({ status: "stopped", status_reason: after.status_reason });

    const resumed = await api(`/v1/schedules/${schedule.id}/resume`, { body: {} });
    expect(resumed.status).toBe(409);
    expect((await getSchedule(schedule.id)).status).toBe("stopped");
  });
});

describe("pause, resume and delete", () => {
  it("pauses (no alarm, no next firing), resumes from the next time after now, and deletes it and its storage", async () => {
    const schedule = await createSchedule({ prompt: "hourly", every_seconds: 3600 });
    const paused = await json<ScheduleWire>(await api(`/v1/schedules/${schedule.id}/pause`, { body: {} }));
    expect(paused).toMatchObject({ status: "paused", next_fire_at: null, status_reason: expect.stringContaining("Paused by admin-token") });
    expect(await runInDurableObject(scheduleObject(schedule.id), (_i: unknown, state: DurableObjectState) => state.storage.getAlarm())).toBeNull();

    const resumed = await json<ScheduleWire>(await api(`/v1/schedules/${schedule.id}/resume`, { body: {} }));
    expect(resumed).toMatchObject({ status: "active", status_reason: null });
    expect(Date.parse(resumed.next_fire_at ?? "")).toBeGreaterThan(Date.now());
    expect(await runInDurableObject(scheduleObject(schedule.id), (_i: unknown, state: DurableObjectState) => state.storage.getAlarm())).toBe(
      Date.parse(resumed.next_fire_at ?? ""),
    );

    expect((await api(`/v1/schedules/${schedule.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await api(`/v1/schedules/${schedule.id}`)).status).toBe(404);
    const listed = await json<{ schedules: ScheduleWire[] }>(await api("/v1/schedules"));
    expect(listed.schedules.some((s) => s.id === schedule.id)).toBe(false);
    const left = await runInDurableObject(scheduleObject(schedule.id), async (_i: unknown, state: DurableObjectState) => ({
      keys: (await state.storage.list()).size,
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ keys: 0, alarm: null });
  });
});

describe("another principal", () => {
  it("cannot see, list, pause, resume or delete a key's schedule; an admin can", async () => {
    const owner = await createKey({ name: "sched-owner", role: "agent" });
    const stranger = await createKey({ name: "sched-stranger", role: "agent" });
    const schedule = await createSchedule({ prompt: "mine", every_seconds: 3600 }, bearer(owner.key));
    for (const [method, path] of [
      ["GET", `/v1/schedules/${schedule.id}`],
      ["POST", `/v1/schedules/${schedule.id}/pause`],
      ["POST", `/v1/schedules/${schedule.id}/resume`],
      ["DELETE", `/v1/schedules/${schedule.id}`],
    ] as const) {
      const response = await api(path, { method, headers: bearer(stranger.key) });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await json<Refusal>(response)).toMatchObject({ error_code: "UNKNOWN_SCHEDULE" });
    }
    const theirs = await json<{ schedules: ScheduleWire[] }>(await api("/v1/schedules", { headers: bearer(stranger.key) }));
    expect(theirs.schedules).toEqual([]);
    const own = await json<{ schedules: ScheduleWire[] }>(await api("/v1/schedules", { headers: bearer(owner.key) }));
    expect(own.schedules.map((s) => s.id)).toEqual([schedule.id]);
    expect((await getSchedule(schedule.id)).status).toBe("active");

    const asOther = await api("/v1/schedules", { body: { prompt: "as owner", every_seconds: 3600, key_id: owner.id }, headers: bearer(stranger.key) });
    expect(asOther.status).toBe(400);
    expect((await json<Refusal>(asOther)).issues?.[0]?.path).toBe("key_id");
    const byAdmin = await createSchedule({ prompt: "as owner", every_seconds: 3600, key_id: owner.id });
    expect(byAdmin).toMatchObject({ key_id: owner.id, created_by: "admin-token" });
  });
});

describe("the schedule tool", () => {
  it("creates and lists the calling key's own schedules, and names a refused field", async () => {
    const key = await createKey({ name: "sched-tool", role: "agent" });
    const call = async <T = Record<string, unknown>>(id: string, args: Record<string, unknown>) =>
      JSON.parse(only(await callTools(key, "sched-tool", [openaiCall(id, "schedule", args)])).message.content) as T;
    const schedule = await call<ScheduleWire>("t1", { action: "create", prompt: "from the tool", every_seconds: 7200 });
    expect(schedule).toMatchObject({ key_id: key.id, every_seconds: 7200, status: "active" });
    const listed = await call<{ schedules?: ScheduleWire[] }>("t2", { action: "list" });
    expect(listed.schedules?.map((s) => s.id)).toEqual([schedule.id]);
    expect(await call("t3", { action: "create", prompt: "x", every_seconds: 5 })).toMatchObject({
      error_code: "INVALID_REQUEST",
      issues: [{ path: "every_seconds", message: expect.stringContaining("SCHEDULE_MIN_INTERVAL_SECONDS") }],
    });
    expect(await call("t4", { action: "pause", id: crypto.randomUUID() })).toMatchObject({ error_code: "UNKNOWN_SCHEDULE" });
  });
});
