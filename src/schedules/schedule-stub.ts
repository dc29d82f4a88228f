/** Routes a schedule id to its object: one Durable Object per schedule, addressed by name. */
export function scheduleStub(env: Env, scheduleId: string) {
  return env.SCHEDULES.get(env.SCHEDULES.idFromName(scheduleId));
}

/** Schedule ids are UUIDs: anything else names no schedule, and wakes no object. */
export const SCHEDULE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
