/**
 * How a Run object stores its record (run-schema.ts, run-record-rows.ts): the fixed part once,
 * the changing part as one small row, each finished step as its own row written once, all one
 * statement a save; and a run
 * stored by an older version as one whole-record row, which is split on its first load and goes on.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LEGACY_RUN_ROW, RUN_FIXED_ROW, RUN_MESSAGES_TABLE, RUN_RECORD_TABLE, RUN_STATE_ROW, stepRowId } from "../../src/agent/run-schema.ts";
import { RunStore } from "../../src/agent/run-store.ts";
import type { RunRecord } from "../../src/agent/run-types.ts";
import { api } from "../support/api.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { runUntil, startRun } from "../support/runs.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const stubOf = (id: string) => env.RUNS.get(env.RUNS.idFromName(id));
const echo = (id: string) => ({ id, name: "echo", arguments: JSON.stringify({ text: id }) });
const deleteCall = (id: string) => ({ id, name: "delete_result", arguments: JSON.stringify({ handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" }) });

/** The object's record rows, by id. */
const rowsOf = (state: DurableObjectState): Record<string, string> =>
  Object.fromEntries(state.storage.sql.exec<{ id: string; record: string }>(`SELECT id, record FROM ${RUN_RECORD_TABLE}`).toArray().map((row) => [row.id, row.record]));
const turnOf = (row: string | undefined): number | undefined => (row === undefined ? undefined : (JSON.parse(row) as { turn: number }).turn);

describe("a Run object's stored record", () => {
  it("keeps each finished step in its own row and no steps in the rows rewritten at every change", async () => {
    const script = await scriptModel([{ tool_calls: [echo("s_1")] }, { tool_calls: [echo("s_2")] }, { content: "two echoes" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} two` })).id, FINISHED);
    expect(run).toMatchObject({ status: "completed", turns: 3 });
    const rows = await runInDurableObject(stubOf(run.id), (_instance, state) => rowsOf(state));
    expect(Object.keys(rows).sort()).toEqual([RUN_FIXED_ROW, RUN_STATE_ROW, stepRowId(0), stepRowId(1), stepRowId(2)].sort());
    expect([0, 1, 2].map((seq) => turnOf(rows[stepRowId(seq)]))).toEqual([1, 2, 3]);
    const state = JSON.parse(rows[RUN_STATE_ROW] ?? "{}") as Record<string, unknown>;
    expect(state).toMatchObject({ status: "completed", turns: 3, answer: "two echoes" });
    expect(state).not.toHaveProperty("steps");
    expect(state).not.toHaveProperty("openStep");
    expect(JSON.parse(rows[RUN_FIXED_ROW] ?? "{}")).not.toHaveProperty("status");
  });

  it("reads back, in a fresh instance, the record it saved, a step whose calls still run included", async () => {
    const script = await scriptModel([{ content: "short" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} round trip` })).id, FINISHED);
    const { saved, read } = await runInDurableObject(stubOf(run.id), (_instance, state) => {
      const store = new RunStore(state.storage.sql);
      const done = store.record() as RunRecord;
      const step = { turn: 2, model_ms: 1, tools_ms: 0, finish_reason: "tool_calls", calls: [] };
      const saved: RunRecord = { ...done, status: "running", turns: 2, steps: [...done.steps, step], inflight: [{ id: "c_open", tool: "echo" }] };
      store.save(saved);
      return { saved, read: new RunStore(state.storage.sql).record() };
    });
    expect(read).toEqual(saved);
  });

  it("splits a run stored in the old one-row shape on its first load, and the run goes on", async () => {
    const script = await scriptModel([{ tool_calls: [deleteCall("d_old")] }, { content: "carried on" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} old shape`, session_id: "run-old-shape" })).id, ["awaiting_approval", ...FINISHED]);
    expect(run.status).toBe("awaiting_approval");
    // The run as a version before the parts stored it: one row with the whole record.
    await runInDurableObject(stubOf(run.id), (_instance, state) => {
      const record = new RunStore(state.storage.sql).record();
      state.storage.sql.exec(`DELETE FROM ${RUN_RECORD_TABLE}`);
      state.storage.sql.exec(`INSERT INTO ${RUN_RECORD_TABLE} (id, record) VALUES (?, ?)`, LEGACY_RUN_ROW, JSON.stringify(record));
    });
    await abortAllDurableObjects();

    const approval = run.pending_approvals[0];
    const decided = await api(`/v1/approvals/${approval?.approval_id}?session_id=run-old-shape`, { body: { decision: "approve", scope: "once" } });
    expect(decided.status).toBe(200);
    const done = await runUntil(run.id, FINISHED);
    expect(done).toMatchObject({ status: "completed", answer: "carried on", turns: 2, tool_calls: 1 });
    expect(done.steps.map((s) => s.turn)).toEqual([1, 2]);
    expect((await sentToModel(script)).requests).toHaveLength(2);
    const rows = await runInDurableObject(stubOf(run.id), (_instance, state) => rowsOf(state));
    expect(Object.keys(rows).sort()).toEqual([RUN_FIXED_ROW, RUN_STATE_ROW, stepRowId(0), stepRowId(1)].sort());
    expect([turnOf(rows[stepRowId(0)]), turnOf(rows[stepRowId(1)])]).toEqual([1, 2]);
  });

  it("stores a long history, past the 100 parameters a statement may bind, whole and in order", async () => {
    const script = await scriptModel([{ content: "read it all" }]);
    const history = Array.from({ length: 70 }, (_, i) => ({ role: "user", content: i === 0 ? `${marker(script)} line 0` : `line ${i}` }));
    const run = await runUntil((await startRun({ messages: history })).id, FINISHED);
    expect(run.status).toBe("completed");
    expect((await sentToModel(script)).requests[0]?.messages.map((m) => m.content)).toEqual(history.map((m) => m.content));
    const stored = await runInDurableObject(stubOf(run.id), (_instance, state) => state.storage.sql.exec<{ n: number; last: number }>(`SELECT COUNT(*) AS n, MAX(seq) AS last FROM ${RUN_MESSAGES_TABLE}`).one());
    expect(stored).toEqual({ n: 71, last: 70 });
  });

  it("numbers a turn's tool results, stored together, in the order the model emitted the calls", async () => {
    const script = await scriptModel([{ tool_calls: [echo("p_2"), echo("p_1"), echo("p_3")] }, { content: "three" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} parallel` })).id, FINISHED);
    const text = await (await api(`/v1/runs/${run.id}/events`)).text();
    const events = [...text.matchAll(/^id: (\d+)\nevent: (.+)\ndata: (.+)$/gm)].map((m) => ({ seq: Number(m[1]), type: m[2], data: JSON.parse(m[3] ?? "{}") as { id?: string } }));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === "tool.result").map((e) => e.data.id)).toEqual(["p_2", "p_1", "p_3"]);
  });
});
