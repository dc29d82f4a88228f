/** Driving schedules through the API in tests, and firing them without waiting for their time. */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { ScheduleStore } from "../../src/schedules/schedule-store.ts";
import type { ScheduleRecord } from "../../src/schedules/schedule-types.ts";
import type { ScheduleWire } from "../../src/schedules/schedule-wire.ts";
import { api } from "./api.ts";
import { json } from "./json.ts";

export type { ScheduleWire };

/** POST /v1/schedules, expecting 201. */
export async function createSchedule(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<ScheduleWire> {
  const response = await api("/v1/schedules", { body, headers });
  expect(response.status, await response.clone().text()).toBe(201);
  return json<ScheduleWire>(response);
}

export async function getSchedule(id: string, headers: Record<string, string> = {}): Promise<ScheduleWire> {
  const response = await api(`/v1/schedules/${id}`, { headers });
  expect(response.status).toBe(200);
  return json<ScheduleWire>(response);
}

export const scheduleObject = (id: string) => env.SCHEDULES.get(env.SCHEDULES.idFromName(id));

/** Changes the stored schedule as its object would find it (a firing time come, a restart's state). */
export async function editSchedule(id: string, edit: (record: ScheduleRecord, store: ScheduleStore) => Promise<void> | void): Promise<void> {
  await runInDurableObject(scheduleObject(id), async (_instance: unknown, state: DurableObjectState) => {
    const store = new ScheduleStore(state.storage);
    const record = await store.record();
    if (record === undefined) throw new Error(`schedule ${id} has no record`);
    await edit(record, store);
  });
}

/**
 * Makes `at` the schedule's next firing time, as if that time had come, and runs the object's
 * alarm now (its real one is set for the firing time the schedule computed, later).
 */
export async function fireAt(id: string, at: number, anchorAt?: number): Promise<void> {
  await editSchedule(id, (record, store) => store.save({ ...record, nextFireAt: at, ...(anchorAt === undefined ? {} : { anchorAt }) }));
  expect(await runDurableObjectAlarm(scheduleObject(id))).toBe(true);
}

/** Reads the schedule until `done` holds of it (its runs' ends reach it by the Run objects' reports). */
export async function scheduleUntil(id: string, done: (s: ScheduleWire) => boolean, timeoutMs = 10_000): Promise<ScheduleWire> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const schedule = await getSchedule(id);
    if (done(schedule)) return schedule;
    if (Date.now() > deadline) throw new Error(`schedule ${id} did not reach the state in ${timeoutMs} ms: ${JSON.stringify(schedule)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
