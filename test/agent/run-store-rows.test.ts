/**
 * Rows a Run object writes together go in one statement (src/agent/insert-rows.ts): a start's
 * history, a turn's tool results. Split at the 100 parameters a Durable Object statement may
 * bind, and numbered in order either way.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RUN_MESSAGES_TABLE } from "../../src/agent/run-schema.ts";
import { api } from "../support/api.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { runUntil, startRun } from "../support/runs.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const stubOf = (id: string) => env.RUNS.get(env.RUNS.idFromName(id));
const echo = (id: string) => ({ id, name: "echo", arguments: JSON.stringify({ text: id }) });

describe("a Run object's rows written together", () => {
  it("stores a long history, past the 100 parameters a statement may bind, whole and in order", async () => {
    const script = await scriptModel([{ content: "read it all" }]);
    const history = Array.from({ length: 70 }, (_, i) => ({ role: "user", content: i === 0 ? `${marker(script)} line 0` : `line ${i}` }));
    const run = await runUntil((await startRun({ messages: history })).id, FINISHED);
    expect(run.status).toBe("completed");
    expect((await sentToModel(script)).requests[0]?.messages.map((m) => m.content)).toEqual(history.map((m) => m.content));
    const stored = await runInDurableObject(stubOf(run.id), (_instance, state) =>
      state.storage.sql.exec<{ n: number; last: number }>(`SELECT COUNT(*) AS n, MAX(seq) AS last FROM ${RUN_MESSAGES_TABLE}`).one(),
    );
    expect(stored).toEqual({ n: 71, last: 70 });
  });

  it("numbers a turn's tool results, stored together, in the order the model emitted the calls", async () => {
    const script = await scriptModel([{ tool_calls: [echo("p_2"), echo("p_1"), echo("p_3")] }, { content: "three" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} parallel` })).id, FINISHED);
    const text = await (await api(`/v1/runs/${run.id}/events`)).text();
    const events = [...text.matchAll(/^id: (\d+)\nevent: (.+)\ndata: (.+)$/gm)].map((m) => ({
      seq: Number(m[1]),
      type: m[2],
      data: JSON.parse(m[3] ?? "{}") as { id?: string },
    }));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === "tool.result").map((e) => e.data.id)).toEqual(["p_2", "p_1", "p_3"]);
  });
});
