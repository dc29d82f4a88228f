import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil, startRun } from "../support/runs.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];

describe("delegate_task", () => {
  it("runs a child with its goal and returns its answer; the child cannot delegate and is audited under the parent run", async () => {
    const child = await scriptModel([
      { tool_calls: [{ id: "child_echo", name: "echo", arguments: '{"text":"from the child"}' }] },
      { content: "the child's report" },
    ]);
    const parent = await scriptModel([
      {
        tool_calls: [
          { id: "deleg_1", name: "delegate_task", arguments: JSON.stringify({ goal: `${marker(child)} echo something`, toolsets: ["core"], max_turns: 4 }) },
        ],
      },
      { content: "parent done" },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(parent)} delegate`, session_id: "deleg-s1" })).id, FINISHED, 20_000);
    expect(run).toMatchObject({ status: "completed", answer: "parent done" });

    const toolMessage = (await sentToModel(parent)).requests[1]?.messages.find((m) => m.role === "tool");
    const result = JSON.parse(String(toolMessage?.content)) as { run_id: string; status: string; answer: string };
    expect(result).toMatchObject({ status: "completed", answer: "the child's report" });

    const childRun = await getRun(result.run_id);
    expect(childRun).toMatchObject({ parent_run_id: run.id, status: "completed" });
    const childRequests = (await sentToModel(child)).requests;
    const offered = childRequests[0]?.tools?.map((t) => t.function.name) ?? [];
    expect(offered).toContain("echo");
    expect(offered).not.toContain("delegate_task");
    expect(offered).not.toContain("read_file");
    expect(childRequests[0]?.messages[0]?.role).toBe("system");

    const [row] = await waitForAuditRows("session_id = ? AND tool_call_id = ?", ["deleg-s1", "child_echo"]);
    expect(row).toMatchObject({ run_id: run.id, status: "ok" });
  }, 30_000);

  it("is refused outside an agent run", async () => {
    const response = await api("/v1/tool-calls", {
      body: { tool_calls: [{ id: "d0", type: "function", function: { name: "delegate_task", arguments: '{"goal":"x"}' } }] },
    });
    const body = await json<{ results: { status: string; message: { content: string } }[] }>(response);
    expect(body.results[0]?.status).toBe("error");
    expect(body.results[0]?.message.content).toContain("only inside an agent run");
  });

  it("refuses a toolset outside the parent run's", async () => {
    const parent = await scriptModel([
      { tool_calls: [{ id: "deleg_2", name: "delegate_task", arguments: JSON.stringify({ goal: "read files", toolsets: ["files"] }) }] },
      { content: "ok" },
    ]);
    const run = await runUntil((await startRun({ input: `${marker(parent)} narrow`, toolset: "delegation" })).id, FINISHED, 20_000);
    expect(run.status).toBe("completed");
    const toolMessage = (await sentToModel(parent)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(String(toolMessage?.content)).toContain("a child gets a subset of its parent's toolsets");
  });
});
