import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, registry } from "../../src/registry/registry.ts";
import { api } from "../support/api.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil, startRun } from "../support/runs.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const SLOW = "agentrun_slow";
const started = new Map<string, number>();

beforeAll(() => {
  registry.register(
    defineTool({
      name: SLOW,
      toolset: "agentrun-fixtures",
      schema: z.object({ label: z.string(), ms: z.number().int() }),
      description: "Sleeps, counting how often it started.",
      handler: async ({ label, ms }) => {
        started.set(label, (started.get(label) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return { slept: ms };
      },
    }),
  );
});
afterAll(() => registry.deregister(SLOW));

const deleteCall = (id: string) => ({ id, name: "delete_result", arguments: JSON.stringify({ handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" }) });

async function awaitingRun(session: string, turns: Parameters<typeof scriptModel>[0]) {
  const script = await scriptModel(turns);
  const run = await runUntil((await startRun({ input: `${marker(script)} delete it`, session_id: session })).id, ["awaiting_approval", ...FINISHED]);
  expect(run.status).toBe("awaiting_approval");
  expect(run.pending_approvals).toHaveLength(1);
  return { script, run, approval: run.pending_approvals[0] as { approval_id: string; url: string } };
}

describe("approvals in a run", () => {
  it("pauses on a call that needs approval; approving runs it and wakes the run, which sends the result to the model", async () => {
    const { script, run, approval } = await awaitingRun("run-appr-1", [{ tool_calls: [deleteCall("d_1")] }, { content: "deleted" }]);
    expect(approval.url).toContain(`/approvals/${approval.approval_id}`);
    const decided = await api(`/v1/approvals/${approval.approval_id}?session_id=run-appr-1`, { body: { decision: "approve", scope: "once" } });
    expect(decided.status).toBe(200);
    const done = await runUntil(run.id, FINISHED);
    expect(done).toMatchObject({ status: "completed", answer: "deleted" });
    const tool = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(tool).toMatchObject({ tool_call_id: "d_1" });
    expect(JSON.parse(String(tool?.content)).error_code).not.toBe("APPROVAL_REQUIRED");
  });

  it("gives the model the denial and its reason", async () => {
    const { script, run, approval } = await awaitingRun("run-appr-2", [{ tool_calls: [deleteCall("d_2")] }, { content: "understood" }]);
    await api(`/v1/approvals/${approval.approval_id}?session_id=run-appr-2`, {
      body: { decision: "deny", scope: "once", reason: "that result is still needed" },
    });
    expect((await runUntil(run.id, FINISHED)).status).toBe("completed");
    const tool = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content))).toMatchObject({ error_code: "APPROVAL_DENIED", error: expect.stringContaining("that result is still needed") });
  });

  it("gives the model APPROVAL_EXPIRED when nobody decides in time, woken by the session's alarm", async () => {
    const { script, run, approval } = await awaitingRun("run-appr-3", [{ tool_calls: [deleteCall("d_3")] }, { content: "expired then" }]);
    const session = env.SESSIONS.get(env.SESSIONS.idFromName("run-appr-3"));
    await runInDurableObject(session, (_instance, state) => {
      state.storage.sql.exec("UPDATE approvals SET expires_at = ? WHERE id = ?", Date.now() - 1, approval.approval_id);
    });
    await runDurableObjectAlarm(session);
    expect((await runUntil(run.id, FINISHED)).status).toBe("completed");
    const tool = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content)).error_code).toBe("APPROVAL_EXPIRED");
  });
});

describe("restarts", () => {
  it("survives its object being reset mid-call: it finishes once, the call is not run twice, the model learns it was interrupted", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "s_1", name: SLOW, arguments: JSON.stringify({ label: "restart-1", ms: 1_500 }) }] },
      { content: "recovered" },
    ]);
    const { id } = await startRun({ input: `${marker(script)} slow`, session_id: "run-restart-1" });
    for (let i = 0; i < 200 && started.get("restart-1") === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started.get("restart-1")).toBe(1);
    await abortAllDurableObjects();
    const stub = env.RUNS.get(env.RUNS.idFromName(id));
    // The aborted alarm is retried by the runtime; run it now rather than wait for its backoff.
    await runDurableObjectAlarm(stub);
    const done = await runUntil(id, FINISHED);
    expect(done).toMatchObject({ status: "completed", answer: "recovered", turns: 2, tool_calls: 1 });
    expect(started.get("restart-1")).toBe(1);
    const { requests } = await sentToModel(script);
    expect(requests).toHaveLength(2);
    const tool = requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(tool).toHaveLength(1);
    expect(JSON.parse(String(tool[0]?.content))).toMatchObject({ error_code: "EXECUTION_FAILED", error: expect.stringContaining("interrupted") });
    expect((await getRun(id)).steps).toHaveLength(2);
  });

  it("repeats no step when restarted between steps", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "e_1", name: SLOW, arguments: JSON.stringify({ label: "restart-2", ms: 0 }) }] },
      { content: "after restart", delay_ms: 300 },
    ]);
    const { id } = await startRun({ input: `${marker(script)} between`, session_id: "run-restart-2" });
    for (let i = 0; i < 200 && (await getRun(id)).turns < 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await abortAllDurableObjects();
    await runDurableObjectAlarm(env.RUNS.get(env.RUNS.idFromName(id)));
    // When the abort landed between two alarms there is none to run now: the next one comes by itself.
    const done = await runUntil(id, FINISHED, 25_000);
    expect(done).toMatchObject({ status: "completed", turns: 2, tool_calls: 1 });
    expect(started.get("restart-2")).toBe(1);
    expect((await sentToModel(script)).requests.filter((r) => r.messages.some((m) => m.tool_call_id === "e_1"))).not.toHaveLength(0);
  }, 30_000);
});
