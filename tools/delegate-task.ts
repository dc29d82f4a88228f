/**
 * delegate_task, Hermes's sub-agent tool: starts a child agent run with a goal, some of the
 * parent run's toolsets and its own turn limit, waits for it, and returns its final answer.
 * Depth 1: a child is not offered this tool and refuses it. The child's calls are audited under
 * the parent's run id. Hidden without a model (MODEL_* unset), and refused outside an agent run.
 */
import { z } from "zod";
import { MODEL_VARIABLES } from "../src/agent/model-config.ts";
import { runStub } from "../src/agent/run-stub.ts";
import type { RunRecord } from "../src/agent/run-types.ts";
import { startRun } from "../src/agent/start-run.ts";
import { registry } from "../src/registry/registry.ts";
import { toolError, toolResult } from "../src/registry/tool-result.ts";
import type { JsonSchema } from "../src/registry/types.ts";
import { kvToolsetLookup } from "../src/toolsets/custom-toolsets.ts";
import { builtInToolsetNames, resolveToolset } from "../src/toolsets/resolve.ts";

const NAME = "delegate_task";
/** The child's wait is bounded by this call's deadline; the batch's (BATCH_TIMEOUT_MS) may be nearer. */
const TIMEOUT_MS = 115_000;

const CHILD_PROMPT =
  "You are a sub-agent given one task by another agent. Use your tools as needed, then answer with a concise, self-contained report of what you found or did: the other agent sees only your final answer.";

registry.register({
  name: NAME,
  toolset: "delegation",
  emoji: "🧑‍🤝‍🧑",
  requiresEnv: MODEL_VARIABLES,
  timeoutMs: TIMEOUT_MS,
  example: { goal: "Find out what time it is in Tokyo and report it.", toolsets: ["core"], max_turns: 5 },
  worstInputs: [
    {
      name: "goal and context at their 20,000-character caps, 16 toolsets of 64 KiB names, 20 turns",
      args: () => ({
        goal: "g".repeat(20_000),
        context: "c".repeat(20_000),
        toolsets: Array.from({ length: 16 }, (_, i) => `${i}`.padEnd(64 * 1024, "t")),
        max_turns: 20,
      }),
    },
  ],
  schema: () =>
    z
      .object({
        goal: z
          .string()
          .min(1)
          .max(20_000)
          .describe("What the child agent must achieve, self-contained: it sees nothing of this conversation but `goal` and `context`."),
        context: z.string().max(20_000).optional().describe("Facts the child needs (file names, ids, constraints)."),
        toolsets: z
          .array(z.string())
          .min(1)
          .max(16)
          .optional()
          .describe("The toolsets the child may use, each within this run's own; this run's toolset when absent."),
        max_turns: z.number().int().min(1).max(20).default(10).describe("Model turns the child may take, 1-20."),
      })
      .describe(
        "Hands a self-contained sub-task to a child agent with its own tools and turn limit, and returns its final answer. Use it for work that needs many tool calls whose details this conversation does not need.",
      ),
  // The toolsets that exist when definitions are made: the model picks from them.
  dynamicSchemaOverrides: () => ({ parameters: withToolsetEnum(builtInToolsetNames()) }),
  handler: async ({ goal, context, toolsets, max_turns }, ctx) => {
    const run = ctx.run;
    if (run === undefined)
      return toolError("delegate_task works only inside an agent run (POST /v1/runs or /v1/chat/completions): there is no run to be the parent.");
    if (run.depth > 0) return toolError("A delegated task cannot delegate again (depth 1); do the work with your own tools.");
    const lookup = kvToolsetLookup(ctx.env.KV);
    const parentTools = run.toolset === undefined ? undefined : new Set((await resolveToolset(run.toolset, lookup)) ?? []);
    for (const toolset of toolsets ?? []) {
      const names = await resolveToolset(toolset, lookup);
      if (names === undefined) return toolError(`Unknown toolset '${toolset}'.`, { error_code: "INVALID_ARGUMENTS" });
      const outside = parentTools === undefined ? [] : names.filter((name) => !parentTools.has(name));
      if (outside.length > 0)
        return toolError(
          `Toolset '${toolset}' has tools this run may not use (${outside.slice(0, 5).join(", ")}); a child gets a subset of its parent's toolsets.`,
          { error_code: "INVALID_ARGUMENTS" },
        );
    }
    const started = await startRun(
      ctx.env,
      {
        messages: [
          { role: "system", content: CHILD_PROMPT },
          { role: "user", content: context === undefined ? goal : `${goal}\n\nContext:\n${context}` },
        ],
        tools: [],
        toolset: undefined,
        toolsets: toolsets ?? (run.toolset === undefined ? undefined : [run.toolset]),
        model: run.model,
        maxTurns: max_turns,
        maxToolCalls: undefined,
        tokenBudget: undefined,
        sessionId: ctx.sessionId,
      },
      { keyId: ctx.keyId, origin: run.origin, lookup, parentRunId: run.auditId, depth: 1 },
    );
    if (!started.ok) return toolError(`The child run could not start: ${started.failure.kind}.`);
    const child = (await runStub(ctx.env, started.record.id).wait(Math.max(0, ctx.deadlineAt - Date.now() - 1_000))) as RunRecord | undefined;
    const record = child ?? started.record;
    const summary = { run_id: record.id, status: record.status, turns: record.turns, tool_calls: record.toolCalls, tokens: record.usage.totalTokens };
    if (record.status === "completed") return toolResult({ ...summary, answer: record.answer ?? "" });
    if (record.status === "awaiting_approval")
      return toolError(
        `The child run ${record.id} is waiting for a person's approval (${record.pending.map((p) => p.url).join(", ")}); it goes on once decided. Its answer is at GET /v1/runs/${record.id}.`,
        summary,
      );
    if (record.status === "running")
      return toolError(`The child run ${record.id} did not finish in time; it goes on, and its answer will be at GET /v1/runs/${record.id}.`, summary);
    return toolError(`The child run ended ${record.status}: ${record.error?.message ?? "no answer"}.`, summary);
  },
});

/** The tool's JSON Schema with `toolsets` items limited to the names given. */
function withToolsetEnum(names: readonly string[]): JsonSchema {
  const base = registry.get(NAME)?.parameters ?? {};
  const properties = (base.properties ?? {}) as Record<string, JsonSchema>;
  const toolsets = properties.toolsets ?? {};
  return { ...base, properties: { ...properties, toolsets: { ...toolsets, items: { type: "string", enum: [...names] } } } };
}
