import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createParts } from "../../src/compose.ts";
import { createApp } from "../../src/http/app.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil, startRun } from "../support/runs.ts";
import { TEST_ADMIN_TOKEN, TEST_MODEL_KEY, TEST_MODEL_NAME } from "../support/test-env.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const echo = (id: string, text: string) => ({ id, name: "echo", arguments: JSON.stringify({ text }) });
const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];

describe("POST /v1/runs", () => {
  it("runs one echo call through the pipeline and ends with the model's answer", async () => {
    const script = await scriptModel([
      {
        content: null,
        tool_calls: [{ id: "call_1", name: "echo", arguments: JSON.stringify({ text: "hi", times: 2 }) }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
      { content: "It said hi hi.", usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 } },
    ]);
    const started = await startRun({ input: `${marker(script)} say hi twice` });
    expect(started.status).toBe("running");
    const run = await runUntil(started.id, FINISHED);
    expect(run).toMatchObject({
      status: "completed",
      answer: "It said hi hi.",
      turns: 2,
      tool_calls: 1,
      usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
    });
    expect(run.steps[0]?.calls).toEqual([expect.objectContaining({ id: "call_1", tool: "echo", status: "ok", error_code: null })]);

    const { requests, authorization } = await sentToModel(script);
    expect(requests).toHaveLength(2);
    expect(authorization).toEqual([`Bearer ${TEST_MODEL_KEY}`, `Bearer ${TEST_MODEL_KEY}`]);
    expect(requests[0]?.model).toBe(TEST_MODEL_NAME);
    expect(requests[0]?.tools?.map((t) => t.function.name)).toContain("echo");
    const second = requests[1]?.messages ?? [];
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(second[1]?.tool_calls?.[0]?.id).toBe("call_1");
    expect(second[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: JSON.stringify({ text: "hi hi" }) });
  });

  it("runs parallel calls and sends one tool message per call id, in the order the model emitted them", async () => {
    const script = await scriptModel([{ tool_calls: [echo("p_b", "second"), echo("p_a", "first"), echo("p_c", "third")] }, { content: "done" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} three echoes` })).id, FINISHED);
    expect(run.status).toBe("completed");
    const { requests } = await sentToModel(script);
    const tools = (requests[1]?.messages ?? []).filter((m) => m.role === "tool");
    expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
      ["p_b", '{"text":"second"}'],
      ["p_a", '{"text":"first"}'],
      ["p_c", '{"text":"third"}'],
    ]);
  });

  it("feeds malformed arguments, an unknown tool and invalid arguments back as tool errors, and goes on", async () => {
    const script = await scriptModel([
      {
        tool_calls: [
          { id: "m_1", name: "echo", arguments: '{"text": "unterminated' },
          { id: "m_2", name: "no_such_tool", arguments: "{}" },
          { id: "m_3", name: "echo", arguments: '{"text": 5}' },
        ],
      },
      { content: "I will stop here." },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(script)} mistakes` })).id, FINISHED);
    expect(run.status).toBe("completed");
    expect(run.steps[0]?.calls.map((c) => c.error_code)).toEqual(["INVALID_ARGUMENTS", "UNKNOWN_TOOL", "INVALID_ARGUMENTS"]);
    const { requests } = await sentToModel(script);
    const tools = (requests[1]?.messages ?? []).filter((m) => m.role === "tool");
    expect(tools.map((m) => JSON.parse(String(m.content)).error_code)).toEqual(["INVALID_ARGUMENTS", "UNKNOWN_TOOL", "INVALID_ARGUMENTS"]);
  });

  it("stops a model that never stops calling tools at max_turns with limit_reached", async () => {
    const script = await scriptModel([{ tool_calls: [echo("loop", "again")], repeat: true }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} loop`, max_turns: 3 })).id, FINISHED);
    expect(run).toMatchObject({ status: "limit_reached", turns: 3, tool_calls: 3, error: { code: "MAX_TURNS" } });
    expect((await sentToModel(script)).requests).toHaveLength(3);
  });

  it("stops at the token budget once the upstream's reported usage reaches it", async () => {
    const usage = { prompt_tokens: 60, completion_tokens: 40, total_tokens: 100 };
    const script = await scriptModel([{ tool_calls: [echo("b", "x")], usage, repeat: true }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} budget`, token_budget: 150 })).id, FINISHED);
    expect(run).toMatchObject({ status: "limit_reached", turns: 2, error: { code: "TOKEN_BUDGET" }, usage: { total_tokens: 200 } });
  });

  it("retries an upstream 429 after its Retry-After and a 500, then goes on", async () => {
    const script = await scriptModel([{ content: "fine", fail: [{ status: 429, retry_after: "0" }, { status: 500 }] }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} flaky` })).id, FINISHED);
    expect(run).toMatchObject({ status: "completed", answer: "fine" });
    expect((await sentToModel(script)).requests).toHaveLength(3);
  });

  it("fails the run with a clear status when the upstream keeps answering 500", async () => {
    const script = await scriptModel([{ content: "never", fail: [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }] }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} down` })).id, FINISHED);
    expect(run).toMatchObject({ status: "failed", error: { code: "MODEL_UPSTREAM_ERROR" } });
    expect(run.error?.message).toMatch(/HTTP 500.*after 4 attempt/);
  });

  it("fails the run with MODEL_REFUSED and the upstream's own message on a 4xx, without asking again", async () => {
    const script = await scriptModel([{ content: "never", fail: [{ status: 401 }] }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} refused` })).id, FINISHED);
    expect(run).toMatchObject({ status: "failed", error: { code: "MODEL_REFUSED" } });
    expect(run.error?.message).toContain("HTTP 401: 401 scripted failure 401");
    expect((await sentToModel(script)).requests).toHaveLength(1);
  });

  it("fails the run with MODEL_TIMEOUT when the model does not answer in time, never hanging", async () => {
    const script = await scriptModel([{ content: "too late", delay_ms: 6_000 }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} slow` })).id, FINISHED, 20_000);
    expect(run).toMatchObject({ status: "failed", error: { code: "MODEL_TIMEOUT" } });
    expect(run.error?.message).toContain("4000 ms");
  });

  it("returns calls of tools the client declared, unexecuted, with finish_reason tool_calls", async () => {
    const script = await scriptModel([{ tool_calls: [{ id: "c_1", name: "lookup_customer", arguments: '{"id":7}' }, echo("c_2", "mine")] }]);
    const tools = [
      {
        type: "function",
        function: { name: "lookup_customer", description: "the client's", parameters: { type: "object", properties: { id: { type: "integer" } } } },
      },
    ];
    const run = await runUntil((await startRun({ input: `${marker(script)} client tool`, tools })).id, FINISHED);
    expect(run).toMatchObject({ status: "completed", finish_reason: "tool_calls", client_tool_calls: [{ id: "c_1", function: { name: "lookup_customer" } }] });
    expect(run.steps[0]?.calls.map((c) => [c.id, c.status])).toEqual([
      ["c_2", "ok"],
      ["c_1", "client"],
    ]);
    expect((await sentToModel(script)).requests[0]?.tools?.map((t) => t.function.name)).toContain("lookup_customer");
  });

  it("records the run id on every audit record of its calls", async () => {
    const script = await scriptModel([{ tool_calls: [echo("a_1", "audited")] }, { content: "ok" }]);
    const run = await runUntil((await startRun({ input: `${marker(script)} audit`, session_id: "run-audit-s1" })).id, FINISHED);
    const [row] = await waitForAuditRows("session_id = ? AND tool_call_id = ?", ["run-audit-s1", "a_1"]);
    expect(row).toMatchObject({ run_id: run.id, tool: "echo", status: "ok" });
    const listed = await json<{ records: { run_id?: string; tool_call_id: string }[] }>(await api("/v1/audit?session_id=run-audit-s1"));
    expect(listed.records.find((r) => r.tool_call_id === "a_1")?.run_id).toBe(run.id);
  });

  it("streams its events as SSE and resumes after Last-Event-ID", async () => {
    const script = await scriptModel([{ tool_calls: [echo("e_1", "evt")] }, { content: "streamed" }]);
    const { id } = await startRun({ input: `${marker(script)} events` });
    const response = await api(`/v1/runs/${id}/events`);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await response.text();
    // The answer's `delta`s are live only (not stored, no id): how many this reader saw depends on when it joined.
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]).filter((type) => type !== "delta");
    expect(types).toEqual(["run.started", "model.turn", "tool.result", "model.turn", "run.finished"]);
    const resumed = await (await api(`/v1/runs/${id}/events`, { headers: { "last-event-id": "3" } })).text();
    expect([...resumed.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(["4", "5"]);
  });

  it("is cancelled on request and lists by status and session with the key's usage", async () => {
    const script = await scriptModel([{ content: "slow", delay_ms: 1_000 }]);
    const { id } = await startRun({ input: `${marker(script)} cancel me`, session_id: "run-list-s1" });
    const cancelled = await json<{ status: string }>(await api(`/v1/runs/${id}/cancel`, { method: "POST" }));
    expect(cancelled.status).toBe("cancelled");
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await getRun(id)).status).toBe("cancelled");
    const listed = await json<{ runs: { id: string; status: string }[]; usage: { runs: number } }>(
      await api("/v1/runs?status=cancelled&session_id=run-list-s1"),
    );
    expect(listed.runs.map((r) => r.id)).toEqual([id]);
    expect(listed.usage.runs).toBeGreaterThan(0);
  });

  it("hides a run from other keys", async () => {
    const script = await scriptModel([{ content: "mine" }]);
    const { id } = await startRun({ input: `${marker(script)} private` });
    const other = await createKey({ name: "run-other", role: "agent" });
    const response = await api(`/v1/runs/${id}`, { headers: { authorization: `Bearer ${other.key}` } });
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error_code: "UNKNOWN_RUN" });
  });

  it("answers 503 naming the variables when no model is configured", async () => {
    const app = createApp(createParts());
    const bare = { ...env, MODEL_BASE_URL: undefined, MODEL_API_KEY: undefined } as Env;
    const request = (path: string) =>
      new Request(`https://toolgate.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "hi", messages: [{ role: "user", content: "hi" }] }),
      });
    for (const path of ["/v1/runs", "/v1/chat/completions"]) {
      const response = await app.fetch(request(path), bare, createExecutionContext());
      expect(response.status).toBe(503);
      const body = await json<{ error: string; error_code: string }>(response);
      expect(body.error_code).toBe("MODEL_NOT_CONFIGURED");
      expect(body.error).toContain("MODEL_BASE_URL, MODEL_API_KEY");
    }
  });
});
