/**
 * The rules of the `todo` tool's task list, as Hermes has them (reference hermes-tools.md §8), as
 * a pure function over the stored list: the Session object applies it in one synchronous step,
 * so two calls of one session never lose each other's changes.
 *
 * Where Hermes quietly repairs bad input (an unknown status becomes pending, long text is cut),
 * the schema refuses it with the field named instead; what it still repairs is what a model
 * cannot easily get wrong on purpose: a repeated id keeps its last occurrence, and a parent
 * that names no item, or would make a cycle, is dropped.
 */

export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** Hermes's bounds: at most this many items in a list, and characters in one item's text. */
export const MAX_TODO_ITEMS = 256;
export const MAX_TODO_CONTENT_CHARS = 4000;

export interface TodoItem {
  id: string;
  content: string;
  status: TodoStatus;
  parent?: string;
}

/** An item as a call sends it: in merge mode only `id` and the fields to change; `parent: ""` removes the parent. */
export interface TodoItemInput {
  id: string;
  content?: string | undefined;
  status?: TodoStatus | undefined;
  parent?: string | undefined;
}

/** The stored list: `revision` grows by one with every call that changes it. */
export interface TodoList {
  items: TodoItem[];
  revision: number;
}

export const EMPTY_TODO_LIST: TodoList = { items: [], revision: 0 };

export interface TodoIssue {
  path: string;
  message: string;
}

export type TodoResult = { ok: true; list: TodoList; changed: boolean } | { ok: false; issues: TodoIssue[] };

export type TodoSummary = { total: number } & Record<TodoStatus, number>;

/** Replaces the list (`merge` false) or merges `todos` into it by id; the list is unchanged on refusal. */
export function applyTodoUpdate(current: TodoList, todos: readonly TodoItemInput[], merge: boolean): TodoResult {
  const issues: TodoIssue[] = [];
  const byId = new Map<string, TodoItem>(merge ? current.items.map((item) => [item.id, item]) : []);
  const fresh = lastOccurrences(todos);
  for (const { input, index } of fresh) {
    const existing = byId.get(input.id);
    if (existing === undefined && (input.content ?? "").trim() === "") {
      const why = merge ? "is not in the list yet" : "is part of a new list (merge is false)";
      issues.push({ path: `todos.${index}.content`, message: `item '${input.id}' ${why}, so it needs its content (1-${MAX_TODO_CONTENT_CHARS} characters)` });
      continue;
    }
    const item: TodoItem = { ...(existing ?? { id: input.id, content: "", status: "pending" }) };
    if (input.content !== undefined && input.content.trim() !== "") item.content = input.content;
    if (input.status !== undefined) item.status = input.status;
    if (input.parent !== undefined) {
      if (input.parent === "") delete item.parent;
      else item.parent = input.parent;
    }
    // A Map keeps an existing key's place: an updated item stays where it was, a new one is appended.
    byId.set(input.id, item);
  }
  if (issues.length > 0) return { ok: false, issues };
  const items = [...byId.values()];
  if (items.length > MAX_TODO_ITEMS) {
    return {
      ok: false,
      issues: [
        {
          path: "todos",
          message: `the list would hold ${items.length} items, more than ${MAX_TODO_ITEMS}; remove completed or cancelled items (merge false replaces the whole list)`,
        },
      ],
    };
  }
  const next = orderActiveFirst(dropBadParents(items));
  const changed = JSON.stringify(next) !== JSON.stringify(current.items);
  return { ok: true, list: { items: next, revision: current.revision + (changed ? 1 : 0) }, changed };
}

/** Each id once, at its last occurrence (Hermes keeps the last of a repeated id). */
function lastOccurrences(todos: readonly TodoItemInput[]): { input: TodoItemInput; index: number }[] {
  const last = new Map<string, number>();
  todos.forEach((input, index) => last.set(input.id, index));
  return todos.flatMap((input, index) => (last.get(input.id) === index ? [{ input, index }] : []));
}

/** A parent must name another item of the list, and following parents must never come back round. */
function dropBadParents(items: TodoItem[]): TodoItem[] {
  const ids = new Set(items.map((item) => item.id));
  const parentOf = new Map<string, string>();
  for (const item of items) if (item.parent !== undefined && item.parent !== item.id && ids.has(item.parent)) parentOf.set(item.id, item.parent);
  for (const item of items) {
    const seen = new Set([item.id]);
    for (let at = parentOf.get(item.id); at !== undefined; at = parentOf.get(at)) {
      if (seen.has(at)) {
        parentOf.delete(item.id);
        break;
      }
      seen.add(at);
    }
  }
  return items.map((item) => {
    const { parent: _dropped, ...rest } = item;
    const parent = parentOf.get(item.id);
    return parent === undefined ? rest : { ...rest, parent };
  });
}

/**
 * Hermes's one ordering rule, for flat lists only: the first in-progress item moves ahead of any
 * pending item before it, so the list reads in the order the work is done.
 */
function orderActiveFirst(items: TodoItem[]): TodoItem[] {
  if (items.some((item) => item.parent !== undefined)) return items;
  const active = items.findIndex((item) => item.status === "in_progress");
  const pending = items.findIndex((item) => item.status === "pending");
  if (active === -1 || pending === -1 || pending > active) return items;
  const moved = items.filter((_, i) => i !== active);
  moved.splice(pending, 0, items[active] as TodoItem);
  return moved;
}

/** How many items there are in each status. */
export function todoSummary(items: readonly TodoItem[]): TodoSummary {
  const summary: TodoSummary = { total: items.length, pending: 0, in_progress: 0, completed: 0, cancelled: 0 };
  for (const item of items) summary[item.status] += 1;
  return summary;
}
