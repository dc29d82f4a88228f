/**
 * memory's and todo's worst inputs (tools/memory.ts, tools/todo.ts) end with a bounded, correct
 * answer through the pipeline and their Durable Objects: every field at its cap is still one
 * quick call.
 */
import { describe, expect, it } from "vitest";
import { runWorst, worstInput } from "../support/worst-inputs.ts";

describe("memory and todo at their worst inputs", () => {
  it("memory refuses twenty adds of the longest content as over its budget, changing nothing", async () => {
    const { outcome } = await runWorst("memory", worstInput("memory", "twenty adds"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("error");
    expect(JSON.parse(outcome.content)).toMatchObject({ success: false, reason: "budget_exceeded", current_entries: [] });
  });

  it("todo keeps a full list of the longest items and drops only the parent that names no item", async () => {
    const { outcome } = await runWorst("todo", worstInput("todo", "a full list"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    // A megabyte of items is more than the model is shown at once: it reads a preview and pages the rest.
    expect(outcome.truncated).toBe(true);
    const { todos } = outcome.value as { todos: { id: string; parent?: string }[] };
    expect(todos).toHaveLength(256);
    expect(todos.filter((t) => t.parent === undefined).map((t) => t.id)).toEqual(["t255"]);
  });
});
