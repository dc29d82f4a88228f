/**
 * The todo tool through POST /v1/tool-calls with created keys, on the real Session objects: a
 * list per session and key, replaced or merged by id, refused with the field named when an item
 * is wrong, and never losing a change to a concurrent call.
 */
import { describe, expect, it } from "vitest";
import { registry } from "../../src/registry/registry.ts";
import { type CallResult, callTools, type Key, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";

let nextCall = 0;

interface TodoBody {
  todos: { id: string; content: string; status: string; parent?: string }[];
  revision: number;
  summary: Record<string, number>;
  issues?: { path: string; message: string }[];
}

async function todo(key: Key, session: string, args: Record<string, unknown>): Promise<{ result: CallResult; body: TodoBody }> {
  const result = only(await callTools(key, session, [openaiCall(`t${nextCall++}`, "todo", args)]));
  return { result, body: JSON.parse(result.message.content) as TodoBody };
}

const plan = [
  { id: "1", content: "Read the failing test", status: "completed" },
  { id: "2", content: "Fix the parser", status: "in_progress" },
  { id: "3", content: "Run the suite", status: "pending" },
];

describe("todo", () => {
  it("runs its metadata example, which its schema accepts", async () => {
    const example = registry.get("todo")?.example;
    expect(registry.get("todo")?.schema.safeParse(example).success).toBe(true);
    const key = await createKey({ name: "todo-example", role: "agent" });
    expect((await todo(key, "todo-s0", example ?? {})).body).toMatchObject({ revision: 1, summary: { total: 2, in_progress: 1, pending: 1 } });
  });

  it("replaces the list, then reads it back with its revision and a count per status", async () => {
    const key = await createKey({ name: "todo-replace", role: "agent" });
    const written = await todo(key, "todo-s1", { todos: plan });
    expect(written.result.status).toBe("ok");
    expect(written.body).toEqual({ todos: plan, revision: 1, summary: { total: 3, pending: 1, in_progress: 1, completed: 1, cancelled: 0 } });
    expect((await todo(key, "todo-s1", {})).body).toEqual(written.body);

    const replaced = await todo(key, "todo-s1", { todos: [{ id: "a", content: "Start over" }], merge: false });
    expect(replaced.body).toEqual({
      todos: [{ id: "a", content: "Start over", status: "pending" }],
      revision: 2,
      summary: { total: 1, pending: 1, in_progress: 0, completed: 0, cancelled: 0 },
    });
  });

  it("merges by id: only the given fields change, new ids are appended, and an unchanged list keeps its revision", async () => {
    const key = await createKey({ name: "todo-merge", role: "agent" });
    await todo(key, "todo-s2", { todos: plan });
    const merged = await todo(key, "todo-s2", {
      merge: true,
      todos: [
        { id: "2", status: "completed" },
        { id: "3", status: "in_progress" },
        { id: "4", content: "Open a PR" },
      ],
    });
    expect(merged.body.todos).toEqual([
      plan[0],
      { ...plan[1], status: "completed" },
      { ...plan[2], status: "in_progress" },
      { id: "4", content: "Open a PR", status: "pending" },
    ]);
    expect(merged.body).toMatchObject({ revision: 2, summary: { total: 4, pending: 1, in_progress: 1, completed: 2 } });
    const same = await todo(key, "todo-s2", { merge: true, todos: [{ id: "2", status: "completed" }] });
    expect(same.body.revision).toBe(2);
  });

  it("takes todos sent as JSON text, as models sometimes serialise nested arguments", async () => {
    const key = await createKey({ name: "todo-text", role: "agent" });
    expect((await todo(key, "todo-s8", { todos: JSON.stringify(plan) })).body).toMatchObject({ todos: plan, revision: 1 });
  });

  it("refuses an unknown status, naming the item's field, and leaves the list as it was", async () => {
    const key = await createKey({ name: "todo-status", role: "agent" });
    await todo(key, "todo-s3", { todos: plan });
    const refused = await todo(key, "todo-s3", { merge: true, todos: [{ id: "2", status: "done" }] });
    expect(refused.result).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(refused.body.issues).toEqual([
      expect.objectContaining({ path: "todos.0.status", message: expect.stringContaining('"pending", "in_progress", "completed", "cancelled"') }),
    ]);
    expect((await todo(key, "todo-s3", {})).body).toMatchObject({ todos: plan, revision: 1 });
  });

  it("refuses a new item without content, naming it, and changes nothing", async () => {
    const key = await createKey({ name: "todo-content", role: "agent" });
    await todo(key, "todo-s4", { todos: plan });
    const refused = await todo(key, "todo-s4", {
      merge: true,
      todos: [
        { id: "1", status: "cancelled" },
        { id: "9", status: "pending" },
      ],
    });
    expect(refused.result).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(refused.body.issues).toEqual([{ path: "todos.1.content", message: "item '9' is not in the list yet, so it needs its content (1-4000 characters)" }]);
    expect((await todo(key, "todo-s4", {})).body).toMatchObject({ todos: plan, revision: 1 });
  });

  it("keeps the last of a repeated id, drops a parent that names no item or makes a cycle, and puts the active item first", async () => {
    const key = await createKey({ name: "todo-normalise", role: "agent" });
    const written = await todo(key, "todo-s5", {
      todos: [
        { id: "a", content: "first a", status: "pending" },
        { id: "b", content: "b", status: "in_progress" },
        { id: "a", content: "second a", status: "pending" },
      ],
    });
    expect(written.body.todos.map((t) => [t.id, t.content])).toEqual([
      ["b", "b"],
      ["a", "second a"],
    ]);
    const active = await todo(key, "todo-s5", {
      todos: [
        { id: "p", content: "p" },
        { id: "q", content: "q", status: "completed" },
        { id: "r", content: "r", status: "in_progress" },
      ],
    });
    expect(active.body.todos.map((t) => t.id)).toEqual(["r", "p", "q"]);
    const parents = await todo(key, "todo-s5", {
      todos: [
        { id: "x", content: "x", parent: "y" },
        { id: "y", content: "y", parent: "x" },
        { id: "z", content: "z", parent: "nowhere" },
        { id: "w", content: "w", parent: "x" },
      ],
    });
    // x → y → x: the first item found on the cycle loses its parent; w's parent x exists.
    expect(parents.body.todos).toEqual([
      { id: "x", content: "x", status: "pending" },
      { id: "y", content: "y", status: "pending", parent: "x" },
      { id: "z", content: "z", status: "pending" },
      { id: "w", content: "w", status: "pending", parent: "x" },
    ]);
  });

  it("keeps one list per session, and per key within a session id", async () => {
    const key = await createKey({ name: "todo-sessions", role: "agent" });
    const other = await createKey({ name: "todo-other", role: "agent" });
    await todo(key, "todo-s6a", { todos: plan });
    expect((await todo(key, "todo-s6b", {})).body).toEqual({
      todos: [],
      revision: 0,
      summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 },
    });
    expect((await todo(other, "todo-s6a", {})).body.todos).toEqual([]);
    await todo(other, "todo-s6a", { todos: [{ id: "1", content: "Someone else's task" }] });
    expect((await todo(key, "todo-s6a", {})).body).toMatchObject({ todos: plan, revision: 1 });
  });

  it("loses no item to concurrent merges in one session", async () => {
    const key = await createKey({ name: "todo-concurrent", role: "agent" });
    const ids = Array.from({ length: 12 }, (_, i) => `task-${i}`);
    const results = await Promise.all(ids.map((id) => todo(key, "todo-s7", { merge: true, todos: [{ id, content: `Do ${id}` }] })));
    expect(results.every(({ result }) => result.status === "ok")).toBe(true);
    const read = await todo(key, "todo-s7", {});
    expect(new Set(read.body.todos.map((t) => t.id))).toEqual(new Set(ids));
    expect(read.body.revision).toBe(12);
  });
});
