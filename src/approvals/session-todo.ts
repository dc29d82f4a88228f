/** Each calling key's `todo` list in a session, kept in the Session object's KV storage (session-schema.ts). */
import { applyTodoUpdate, EMPTY_TODO_LIST, type TodoList } from "../todo/todo-list.ts";
import type { TodoAnswer, TodoUpdate } from "./session-api.ts";
import { sessionTodoKey } from "./session-schema.ts";

/**
 * Reads or changes the calling key's todo list in the session. Read, apply and write happen
 * with no `await` between them, so concurrent calls of one session each see the other's result.
 */
export function sessionTodo(kv: SyncKvStorage, { keyId, todos, merge }: TodoUpdate): TodoAnswer {
  const current = kv.get<TodoList>(sessionTodoKey(keyId)) ?? EMPTY_TODO_LIST;
  if (todos === undefined) return { ok: true, list: current, changed: false };
  const result = applyTodoUpdate(current, todos, merge);
  if (!result.ok) return { ok: false, issues: result.issues, list: current };
  if (result.changed) kv.put(sessionTodoKey(keyId), result.list);
  return result;
}
