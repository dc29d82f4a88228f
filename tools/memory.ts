/**
 * Hermes's `memory` tool (reference hermes-tools.md §7): notes the agent keeps about its work
 * (`memory`) and about the user (`user`), under character budgets, kept per API key across
 * sessions in the key's MemoryStore object. Unlike Hermes, every answer carries the store's
 * current entries: a gateway cannot put them in the system prompt, so the model sees them here
 * (and clients read them at GET /v1/memory or the MCP resource toolgate://memory).
 */
import { z } from "zod";
import type { MemoryAnswer, MemoryStoreView } from "../src/memory/memory-api.ts";
import { MEMORY_CHAR_LIMITS, MEMORY_TARGETS, type MemoryChange } from "../src/memory/memory-entries.ts";
import { memoryStub } from "../src/memory/memory-stub.ts";
import { memoryThreat } from "../src/memory/memory-threats.ts";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";

const ACTIONS = ["add", "replace", "remove", "read"] as const;
const CHANGES = ["add", "replace", "remove"] as const;
const MAX_TEXT = Math.max(...Object.values(MEMORY_CHAR_LIMITS));
const MAX_OPERATIONS = 20;

const content = () =>
  z
    .string()
    .max(MAX_TEXT)
    .optional()
    .describe(
      `The entry's full text, for add and replace: one fact or preference per entry, plain text, 1-${MAX_TEXT} characters (the store's whole budget is the real bound).`,
    )
    .meta({ examples: ["Prefers answers in British English."] });
const oldText = () =>
  z
    .string()
    .max(MAX_TEXT)
    .optional()
    .describe(
      "For replace and remove: a short piece of the existing entry's text, exact and case-sensitive, that appears in that entry only (1-200 characters is typical).",
    )
    .meta({ examples: ["British English"] });

type Fields = { action?: string | undefined; content?: string | undefined; old_text?: string | undefined };

/** What each action needs, checked here so a missing field is named like any schema error. */
function requireFields(fields: Fields, path: (string | number)[], ctx: z.RefinementCtx): void {
  const needs = (field: "content" | "old_text") => {
    if ((fields[field] ?? "").trim() === "")
      ctx.addIssue({ code: "custom", path: [...path, field], message: `${field} is required (and must not be blank) when action is "${fields.action ?? ""}"` });
  };
  if (fields.action === "add" || fields.action === "replace") needs("content");
  if (fields.action === "replace" || fields.action === "remove") needs("old_text");
}

const schema = () =>
  z
    .object({
      target: z
        .enum(MEMORY_TARGETS)
        .describe(
          `Which store: "memory" for your own notes about the work and environment (budget ${MEMORY_CHAR_LIMITS.memory} characters), "user" for what you learn about the user (budget ${MEMORY_CHAR_LIMITS.user} characters).`,
        ),
      action: z
        .enum(ACTIONS)
        .optional()
        .describe(
          '"add" a new entry (needs content), "replace" the entry containing old_text (needs old_text and content), "remove" the entry containing old_text (needs old_text), or "read" the entries. Required unless operations is given.',
        ),
      content: content(),
      old_text: oldText(),
      operations: z
        .array(z.object({ action: z.enum(CHANGES).describe("add, replace or remove, as for action."), content: content(), old_text: oldText() }).strict())
        .min(1)
        .max(MAX_OPERATIONS)
        .optional()
        .describe(
          `Instead of action: 1-${MAX_OPERATIONS} changes to the one target, applied in order and all or none; the budget is checked on the result only, so remove or shorten entries first to make room for an add.`,
        ),
    })
    .superRefine((args, ctx) => {
      if (args.operations === undefined) {
        if (args.action === undefined) ctx.addIssue({ code: "custom", path: ["action"], message: "action is required unless operations is given" });
        else requireFields(args, [], ctx);
        return;
      }
      if (args.action !== undefined) ctx.addIssue({ code: "custom", path: ["action"], message: "give either action or operations, not both" });
      args.operations.forEach((operation, i) => requireFields(operation, ["operations", i], ctx));
    });

/** Usage as Hermes prints it: "P% — C/L chars". */
const usage = ({ chars, limit }: MemoryStoreView): string => `${Math.round((chars / limit) * 100)}% — ${chars}/${limit} chars`;

const storeFields = (store: MemoryStoreView) => ({
  target: store.target,
  entries: store.entries,
  entry_count: store.entries.length,
  usage: usage(store),
  chars: store.chars,
  limit: store.limit,
});

/** One change as the store takes it: texts trimmed, as Hermes trims them. */
function toChange({
  action,
  content,
  old_text,
}: {
  action: (typeof CHANGES)[number];
  content?: string | undefined;
  old_text?: string | undefined;
}): MemoryChange {
  const text = (content ?? "").trim();
  const oldText = (old_text ?? "").trim();
  return action === "add" ? { action, content: text } : action === "replace" ? { action, oldText, content: text } : { action, oldText };
}

/** The refusal of a change whose text memory must not keep (memory-threats.ts), if any. */
function blockedContent(changes: readonly MemoryChange[]): string | undefined {
  for (const [index, change] of changes.entries()) {
    const why = change.action === "remove" ? undefined : memoryThreat(change.content);
    if (why === undefined) continue;
    const where = changes.length === 1 ? "" : ` (change ${index})`;
    return toolError(
      `Memory refused this content${where}: ${why}. Entries are shown to the model in later sessions, so they must hold facts and preferences, not instructions; nothing was changed.`,
      {
        success: false,
        reason: "content_blocked",
        ...(changes.length === 1 ? {} : { operation_index: index }),
      },
    );
  }
  return undefined;
}

/** A refusal the model can act on: why, how many entries matched, and the store as it is. */
function refusal(answer: Extract<MemoryAnswer, { ok: false }>): string {
  const { store } = answer;
  const fields = {
    success: false,
    reason: answer.reason,
    ...(answer.reason !== "budget_exceeded" && answer.index !== undefined ? { operation_index: answer.index } : {}),
    target: store.target,
    current_entries: store.entries,
    usage: usage(store),
    chars: store.chars,
    limit: store.limit,
  };
  if (answer.reason === "ambiguous_match") return toolError(answer.message, { ...fields, match_count: answer.matchCount, matches: answer.matches });
  if (answer.reason === "no_match")
    return toolError(answer.message, { ...fields, match_count: 0, suggestion: "Pick old_text from current_entries, copied exactly." });
  return toolError(answer.message, fields);
}

registry.register({
  name: "memory",
  toolset: "memory",
  emoji: "🧠",
  schema,
  // Two calls in one batch apply in the order the model wrote them (an add then its replace).
  writes: ["memory"],
  example: { target: "user", action: "add", content: "Prefers answers in British English." },
  worstInputs: [
    {
      name: "twenty adds of the longest content, worded to make the exfiltration check try every position, over the budget",
      args: () => ({
        target: "memory",
        operations: Array.from({ length: MAX_OPERATIONS }, (_, i) => ({
          action: "add",
          content: `${i} send ${"tokens to ".repeat(MAX_TEXT)}`.slice(0, MAX_TEXT),
        })),
      }),
    },
  ],
  description:
    'Saves, changes, removes or reads durable notes that persist across sessions for this API key. Two stores: "memory" (your notes: environment facts, conventions, lessons learned) and "user" (who the user is: name, role, preferences). ' +
    `Each store has a character budget (memory ${MEMORY_CHAR_LIMITS.memory}, user ${MEMORY_CHAR_LIMITS.user}, counting entries joined by a 3-character separator); a change that would pass it is refused and nothing is lost: consolidate first. ` +
    "replace and remove find the entry by old_text, a substring that must occur in exactly one entry. Several changes to one store can go in operations, applied all or none. Every answer returns the store's current entries. Save what will matter in later sessions, not task progress (use todo for that). " +
    'Example: {"target": "user", "action": "add", "content": "Prefers answers in British English."}.',
  handler: async ({ target, action, content, old_text, operations }, { env, keyId }) => {
    const store = memoryStub(env, keyId);
    if (action === "read") {
      const snapshot = await store.read();
      return { success: true, ...storeFields(snapshot[target]) };
    }
    const changes = (operations ?? [{ action: action ?? "add", content, old_text }]).map(toChange);
    const blocked = blockedContent(changes);
    if (blocked !== undefined) return blocked;
    const answer = await store.change(target, changes);
    if (!answer.ok) return refusal(answer);
    return { success: true, message: answer.message, changed: answer.changed, ...storeFields(answer.store) };
  },
});
