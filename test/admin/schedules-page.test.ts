/**
 * The console's Schedules page: every key's schedules with their status and reason, paused,
 * resumed and deleted through the API's own routes, behind the session's CSRF check.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { createSchedule, getSchedule } from "../support/schedules.ts";
import { consoleCsrf, signedInAs } from "./admin-client.ts";

describe("the console's Schedules page", () => {
  it("lists another key's schedule, and pauses, resumes and deletes it", async () => {
    const { client } = await signedInAs("admin");
    const owner = await createKey({ name: "console-sched-owner", role: "agent" });
    const schedule = await createSchedule({ name: "<b>nightly</b>", prompt: "nightly report", cron: "0 2 * * *" }, { authorization: `Bearer ${owner.key}` });

    expect((await client.get("/admin/schedules")).status).toBe(200);
    const row = () => new RegExp(`<tr data-schedule="${schedule.id}">[\\s\\S]*?</tr>`).exec(client.lastPage)?.[0] ?? "";
    expect(row()).toContain(owner.id);
    expect(row()).toContain("&lt;b&gt;nightly&lt;/b&gt;");
    expect(row()).toContain(">active<");

    const csrf = await consoleCsrf(client);
    const paused = await client.post(`/admin/schedules/${schedule.id}/pause`, { csrf });
    expect(paused.status).toBe(303);
    expect((await getSchedule(schedule.id)).status).toBe("paused");
    await client.get("/admin/schedules");
    expect(row()).toContain(">paused<");
    expect(row()).toContain("Paused by");

    expect((await client.post(`/admin/schedules/${schedule.id}/resume`, { csrf })).status).toBe(303);
    expect((await getSchedule(schedule.id)).status).toBe("active");
    expect((await client.post(`/admin/schedules/${schedule.id}/delete`, { csrf })).status).toBe(303);
    expect((await api(`/v1/schedules/${schedule.id}`)).status).toBe(404);
    expect((await client.post(`/admin/schedules/${schedule.id}/delete`, { csrf })).status).toBe(404);
  });

  it("refuses a change without the session's CSRF token", async () => {
    const { client } = await signedInAs("admin");
    const schedule = await createSchedule({ prompt: "hourly", every_seconds: 3600 });
    expect((await client.post(`/admin/schedules/${schedule.id}/pause`, {})).status).toBe(403);
    expect((await getSchedule(schedule.id)).status).toBe("active");
  });
});
