/**
 * Hermes's `todo` tool (reference hermes-tools.md §8): the session's task list, which the model
 * keeps to plan multi-step work and to find its place again. Kept in the session's Durable
 * Object, per calling key (two keys sending one session id have separate lists).
 */
import { z } from "zod";
import { sessionStub } from "../src/approvals/session-stub.ts";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import { MAX_TODO_CONTENT_CHARS, MAX_TODO_ITEMS, TODO_STATUSES, type TodoList, todoSummary } from "../src/todo/todo-list.ts";

const MAX_ID_CHARS = 64;

const item = () =>
  z
    .object({
      id: z
        .string()
        .min(1)
        .max(MAX_ID_CHARS)
        .describe(`The item's id, unique in the list, 1-${MAX_ID_CHARS} characters; short ids such as "1", "2" or "tests" work best.`)
        .meta({ examples: ["1"] }),
      content: z
        .string()
        .max(MAX_TODO_CONTENT_CHARS)
        .optional()
        .describe(`What to do, 1-${MAX_TODO_CONTENT_CHARS} characters. Required for a new item; in merge mode leave it out to keep the item's text.`)
        .meta({ examples: ["Run the test suite"] }),
      status: z
        .enum(TODO_STATUSES)
        .optional()
        .describe(
          "pending (not started, the default for a new item), in_progress (being done now; keep one at a time), completed, or cancelled (no longer needed).",
        ),
      parent: z
        .string()
        .max(MAX_ID_CHARS)
        .optional()
        .describe('Optional id of the item this one is a step of; "" removes the parent. A parent that names no item, or would make a cycle, is dropped.'),
    })
    .strict();

const schema = () =>
  z.object({
    todos: z
      .array(item())
      .max(MAX_TODO_ITEMS)
      .optional()
      .describe(`The items to write, at most ${MAX_TODO_ITEMS}. Leave it out to read the list without changing it.`),
    merge: z
      .boolean()
      .default(false)
      .describe(
        "false (default): todos becomes the whole list. true: each item updates the item with its id (only the fields given) or is appended when the id is new.",
      ),
  });

const answer = (list: TodoList) => ({ todos: list.items, revision: list.revision, summary: todoSummary(list.items) });

registry.register({
  name: "todo",
  toolset: "todo",
  emoji: "📋",
  schema,
  writes: ["todo"],
  example: {
    todos: [
      { id: "1", content: "Read the failing test", status: "in_progress" },
      { id: "2", content: "Fix the parser", status: "pending" },
    ],
    merge: false,
  },
  worstInputs: [
    {
      name: "a full list of the longest items, each the parent of the one before (the cycle check walks every chain)",
      args: () => ({
        todos: Array.from({ length: MAX_TODO_ITEMS }, (_, i) => ({
          id: `t${i}`,
          content: `${i} ${"x".repeat(MAX_TODO_CONTENT_CHARS)}`.slice(0, MAX_TODO_CONTENT_CHARS),
          parent: `t${i + 1}`,
        })),
        merge: false,
      }),
    },
  ],
  description:
    "Reads and writes this session's task list, to plan work of three or more steps and track where you are. Each item has an id, content and a status (pending, in_progress, completed, cancelled). " +
    "Send the whole list with merge false to (re)plan; send only changed items with merge true to update them (for example one item's status); send no todos to read. " +
    "Every call returns the full list, its revision (raised by each change) and a count per status. Keep one item in_progress at a time and mark it completed as soon as it is done. " +
    'Example: {"todos": [{"id": "2", "status": "completed"}, {"id": "3", "status": "in_progress"}], "merge": true}.',
  handler: async ({ todos, merge }, { env, sessionId, keyId, toolName }) => {
    const result = await sessionStub(env, sessionId).todo({ keyId, todos, merge });
    if (!result.ok) {
      throw new ToolFailureError({
        kind: "invalid_arguments",
        name: toolName,
        issues: result.issues,
        example: '{"todos": [{"id": "1", "content": "Write the tests", "status": "pending"}]}',
      });
    }
    return answer(result.list);
  },
});
