import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { runUntil, startRun } from "../support/runs.ts";
import { TEST_MODEL_KEY, TEST_MODEL_NAME } from "../support/test-env.ts";

describe("POST /v1/runs", () => {
  it("runs one echo call through the pipeline and ends with the model's answer", async () => {
    const script = await scriptModel([
      { content: null, tool_calls: [{ id: "call_1", name: "echo", arguments: JSON.stringify({ text: "hi", times: 2 }) }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
      { content: "It said hi hi.", usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 } },
    ]);
    const started = await startRun({ input: `${marker(script)} say hi twice` });
    expect(started.status).toBe("running");
    const run = await runUntil(started.id, ["completed", "failed"]);
    expect(run).toMatchObject({ status: "completed", answer: "It said hi hi.", turns: 2, tool_calls: 1, usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 } });
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

  it("answers 404 for a run of another key and for an unknown id", async () => {
    const response = await api("/v1/runs/no-such-run");
    expect(response.status).toBe(404);
    expect(await json(response)).toMatchObject({ error_code: "UNKNOWN_RUN" });
  });
});
