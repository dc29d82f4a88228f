/**
 * The agent's question (clarify) in a durable run, with the scripted model: the run pauses
 * `awaiting_input` with the question and its choices, the run's own key answers, the answer is
 * the call's result and the run goes on; another key cannot answer; nobody answering ends the
 * run at its deadline; a chat completion ends with the question as the assistant's message.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { RUN_RECORD_TABLE } from "../../src/agent/run-schema.ts";
import type { RunRecord } from "../../src/agent/run-types.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil, startRun, type WireRun } from "../support/runs.ts";
import { TEST_MODEL_NAME } from "../support/test-env.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];
const WAITING = ["awaiting_input", "awaiting_approval", ...FINISHED];

type QuestionRun = WireRun & { question: { id: string; question: string; choices: string[]; deadline_at: string } | null };

const ask = (id: string, question: string, choices?: string[]) => ({
  id,
  name: "clarify",
  arguments: JSON.stringify({ question, ...(choices === undefined ? {} : { choices }) }),
});

/** An agent key, the Authorization header it sends, and a run it started that waits on `question`. */
async function waitingRun(turns: Parameters<typeof scriptModel>[0]) {
  const key = await createKey({ name: `clarify-${crypto.randomUUID()}`, role: "agent" });
  const headers = { authorization: `Bearer ${key.key}` };
  const script = await scriptModel(turns);
  const started = await startRun({ input: `${marker(script)} migrate the database` }, headers);
  const run = (await runUntil(started.id, WAITING)) as QuestionRun;
  return { key, headers, script, run };
}

const answer = (id: string, body: Record<string, unknown>, headers: Record<string, string>) => api(`/v1/runs/${id}/answer`, { body, headers });

describe("clarify in a run", () => {
  it("pauses awaiting_input with the question and choices, in the run and its events; the owner's answer resumes it and reaches the model", async () => {
    const { headers, script, run } = await waitingRun([
      { tool_calls: [ask("q_1", "Which database?", ["staging", "production"])] },
      { content: "Migrated staging." },
    ]);
    expect(run.status).toBe("awaiting_input");
    expect(run.question).toMatchObject({ id: "q_1", question: "Which database?", choices: ["staging", "production"] });
    expect(run.steps[0]?.calls[0]).toMatchObject({ id: "q_1", tool: "clarify", status: "awaiting_input" });

    const answered = await answer(run.id, { answer: "staging", question_id: "q_1" }, headers);
    expect(answered.status).toBe(200);
    const done = await runUntil(run.id, FINISHED);
    expect(done).toMatchObject({ status: "completed", answer: "Migrated staging.", question: null });
    const tool = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(tool?.tool_call_id).toBe("q_1");
    expect(JSON.parse(String(tool?.content))).toEqual({ question: "Which database?", choices_offered: ["staging", "production"], user_response: "staging" });

    const stream = await (await api(`/v1/runs/${run.id}/events`, { headers })).text();
    const pending = /event: input\.pending\ndata: (.*)\n/.exec(stream)?.[1];
    expect(JSON.parse(pending ?? "{}")).toMatchObject({ call_id: "q_1", question: "Which database?", choices: ["staging", "production"] });
    expect(stream).toMatch(/event: input\.answered\ndata: .*"answer":"staging"/);
    expect(stream.indexOf("input.pending")).toBeLessThan(stream.indexOf("input.answered"));
  });

  it("refuses an answer from another key (404) and from an admin who is not the owner (403); the run keeps waiting", async () => {
    const { run } = await waitingRun([{ tool_calls: [ask("q_2", "Proceed?")] }, { content: "ok" }]);
    const other = await createKey({ name: `clarify-other-${crypto.randomUUID()}`, role: "agent" });
    const stranger = await answer(run.id, { answer: "yes" }, { authorization: `Bearer ${other.key}` });
    expect(stranger.status).toBe(404);
    expect(await json(stranger)).toMatchObject({ error_code: "UNKNOWN_RUN" });
    const admin = await answer(run.id, { answer: "yes" }, {});
    expect(admin.status).toBe(403);
    expect(await json(admin)).toMatchObject({ error_code: "NOT_RUN_OWNER" });
    expect((await getRun(run.id)).status).toBe("awaiting_input");
  });

  it("answers bad input with structured 400 and 409 errors, never a 500", async () => {
    const { headers, run } = await waitingRun([{ tool_calls: [ask("q_3", "Which?", ["a", "b"])] }, { content: "done" }]);
    for (const body of [{}, { answer: "" }, { answer: "   " }, { answer: "x".repeat(4_001) }, { answer: 42 }]) {
      const response = await answer(run.id, body, headers);
      expect(response.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    const stale = await answer(run.id, { answer: "a", question_id: "q_earlier" }, headers);
    expect(stale.status).toBe(409);
    expect(await json(stale)).toMatchObject({ error_code: "NO_QUESTION", error: expect.stringContaining("q_3") });
    expect((await answer(run.id, { answer: "a" }, headers)).status).toBe(200);
    await runUntil(run.id, FINISHED);
    const late = await answer(run.id, { answer: "b" }, headers);
    expect(late.status).toBe(409);
    expect(await json(late)).toMatchObject({ error_code: "NO_QUESTION" });
  });

  it("asks one question at a time: a second clarify in the same turn gets QUESTION_PENDING", async () => {
    const { headers, script, run } = await waitingRun([{ tool_calls: [ask("q_4", "First?"), ask("q_5", "Second?")] }, { content: "fine" }]);
    expect(run.question?.id).toBe("q_4");
    expect((await answer(run.id, { answer: "one" }, headers)).status).toBe(200);
    await runUntil(run.id, FINISHED);
    const tools = (await sentToModel(script)).requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(tools.map((m) => m.tool_call_id)).toEqual(["q_4", "q_5"]);
    expect(JSON.parse(String(tools[1]?.content))).toMatchObject({ error_code: "QUESTION_PENDING" });
  });

  it("waits on a step's approval first, then asks its question; both results reach the model in call order", async () => {
    const deleteCall = { id: "d_9", name: "delete_result", arguments: JSON.stringify({ handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" }) };
    const { headers, script, run } = await waitingRun([{ tool_calls: [deleteCall, ask("q_9", "And then?")] }, { content: "all done" }]);
    expect(run.status).toBe("awaiting_approval");
    expect(run.question?.id).toBe("q_9");
    expect((await answer(run.id, { answer: "too early" }, headers)).status).toBe(409);
    const approval = run.pending_approvals[0] as { approval_id: string };
    expect((await api(`/v1/approvals/${approval.approval_id}?session_id=${run.session_id}`, { body: { decision: "deny", scope: "once" } })).status).toBe(200);
    expect((await runUntil(run.id, ["awaiting_input", ...FINISHED])).status).toBe("awaiting_input");
    expect((await answer(run.id, { answer: "stop there" }, headers)).status).toBe(200);
    expect(await runUntil(run.id, FINISHED)).toMatchObject({ status: "completed", answer: "all done" });
    const tools = (await sentToModel(script)).requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(tools.map((m) => m.tool_call_id)).toEqual(["d_9", "q_9"]);
    expect(JSON.parse(String(tools[0]?.content))).toMatchObject({ error_code: "APPROVAL_DENIED" });
    expect(JSON.parse(String(tools[1]?.content))).toMatchObject({ user_response: "stop there" });
  });

  it("refuses a question from a delegate_task child, which reports what it assumed instead", async () => {
    const child = await scriptModel([{ tool_calls: [ask("q_c", "Which one?")] }, { content: "assumed the first" }]);
    const { run } = await waitingRun([
      { tool_calls: [{ id: "dt_1", name: "delegate_task", arguments: JSON.stringify({ goal: `${marker(child)} pick one`, max_turns: 3 }) }] },
      { content: "parent done" },
    ]);
    expect(run).toMatchObject({ status: "completed", answer: "parent done" });
    const tool = (await sentToModel(child)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content)).error).toContain("delegated task cannot ask");
  });

  it("ends the run limit_reached with QUESTION_UNANSWERED when nobody answers by its deadline", async () => {
    const { run } = await waitingRun([{ tool_calls: [ask("q_6", "Anyone there?")] }, { content: "never" }]);
    const stub = env.RUNS.get(env.RUNS.idFromName(run.id));
    await runInDurableObject(stub, (_instance, state) => {
      const row = state.storage.sql.exec<{ record: string }>(`SELECT record FROM ${RUN_RECORD_TABLE}`).one();
      const record = JSON.parse(row.record) as RunRecord;
      record.limits.deadlineAt = Date.now() - 1;
      state.storage.sql.exec(`UPDATE ${RUN_RECORD_TABLE} SET record = ?`, JSON.stringify(record));
    });
    // A fresh instance reads the stored record (an instance keeps its copy in memory).
    await abortAllDurableObjects();
    // A stub made before the abort is broken by it: a new one reaches the fresh instance.
    await runDurableObjectAlarm(env.RUNS.get(env.RUNS.idFromName(run.id)));
    const done = await runUntil(run.id, FINISHED);
    expect(done).toMatchObject({ status: "limit_reached", error: { code: "QUESTION_UNANSWERED", message: expect.stringContaining("Anyone there?") } });
  });
});

describe("clarify through POST /v1/chat/completions", () => {
  it("ends the completion with the question, its choices numbered, as the assistant's message; the run waits for the answer", async () => {
    const key = await createKey({ name: `clarify-chat-${crypto.randomUUID()}`, role: "agent" });
    const client = new OpenAI({
      baseURL: "https://toolgate.test/v1",
      apiKey: key.key,
      maxRetries: 0,
      fetch: (input, init) => exports.default.fetch(input as RequestInfo, init),
    });
    const script = await scriptModel([{ tool_calls: [ask("q_7", "Which region?", ["eu", "us"])] }, { content: "Deployed to eu." }]);
    const completion = await client.chat.completions.create({ model: TEST_MODEL_NAME, messages: [{ role: "user", content: `${marker(script)} deploy` }] });
    expect(completion.choices[0]?.message.content).toBe("Which region?\n\n1. eu\n2. us");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    const toolgate = (completion as typeof completion & { toolgate: { run_id: string; status: string; question: { id: string; answer_path: string } } })
      .toolgate;
    expect(toolgate).toMatchObject({ status: "awaiting_input", question: { id: "q_7", answer_path: `/v1/runs/${toolgate.run_id}/answer` } });
    expect((await answer(toolgate.run_id, { answer: "eu" }, { authorization: `Bearer ${key.key}` })).status).toBe(200);
    expect(await runUntil(toolgate.run_id, FINISHED)).toMatchObject({ status: "completed", answer: "Deployed to eu." });
  });

  it("streams the question as the last chunk's text and ends the stream there", async () => {
    const key = await createKey({ name: `clarify-stream-${crypto.randomUUID()}`, role: "agent" });
    const script = await scriptModel([{ tool_calls: [ask("q_8", "Tabs or spaces?")] }, { content: "spaces" }]);
    const response = await api("/v1/chat/completions", {
      body: { model: TEST_MODEL_NAME, stream: true, messages: [{ role: "user", content: `${marker(script)} format` }] },
      headers: { authorization: `Bearer ${key.key}` },
    });
    const text = await response.text();
    const chunks = text
      .split("\n\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => JSON.parse(line.slice(6)) as { choices: { delta: { content?: string }; finish_reason: string | null }[] });
    const last = chunks.filter((c) => c.choices.length > 0).at(-1);
    expect(last?.choices[0]).toMatchObject({ delta: { content: "Tabs or spaces?" }, finish_reason: "stop" });
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });
});
