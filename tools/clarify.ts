/**
 * clarify, Hermes's question to the person: the agent asks, with up to four choices, and waits.
 *
 * Where the answer comes from depends on who called:
 * - inside an agent run, the run pauses `awaiting_input` (src/agent/run-question.ts): this
 *   handler only hands the run its question, and the answer, from the run's own principal,
 *   becomes the call's result when the run goes on;
 * - over MCP, the client is asked with elicitation (`ctx.client.request`, on the call's stream
 *   or as the modern era's `input_required`), when it supports it;
 * - anywhere else (a bare POST /v1/tool-calls) there is nobody to ask, and it says so.
 */
import { z } from "zod";
import { AWAITING_INPUT } from "../src/agent/run-question.ts";
import { registry } from "../src/registry/registry.ts";
import { toolError } from "../src/registry/tool-result.ts";
import type { ToolContext } from "../src/registry/types.ts";

/** What an MCP client's person is asked: pick a choice or write their own answer. */
function elicitationOf(question: string, choices: readonly string[]): Record<string, unknown> {
  const own = { type: "string", title: choices.length === 0 ? "Your answer" : "Or answer in your own words", maxLength: 4_000 };
  return {
    message: question,
    requestedSchema: {
      type: "object",
      properties: choices.length === 0 ? { answer: own } : { choice: { type: "string", title: "Choose one", enum: [...choices] }, answer: own },
      ...(choices.length === 0 ? { required: ["answer"] } : {}),
    },
  };
}

/** The person's answer from an elicitation result: their own words win over a picked choice. */
function answerOf(result: unknown): string | null {
  const { action, content } = (result ?? {}) as { action?: unknown; content?: { answer?: unknown; choice?: unknown } };
  if (action !== "accept") return null;
  const own = typeof content?.answer === "string" ? content.answer.trim() : "";
  if (own !== "") return own;
  return typeof content?.choice === "string" && content.choice !== "" ? content.choice : null;
}

/** Asks an MCP client's person (elicitation) and returns the answer in the shape a run's answer has. */
async function askOverMcp(ask: NonNullable<ToolContext["client"]["request"]>, question: string, choices: string[]) {
  const result = await ask("elicitation/create", elicitationOf(question, choices));
  const answer = answerOf(result);
  if (answer === null)
    return {
      question,
      choices_offered: choices,
      user_response: null,
      note: "The person declined to answer. Use your best judgement, or ask differently.",
    };
  return { question, choices_offered: choices, user_response: answer };
}

registry.register({
  name: "clarify",
  toolset: "clarify",
  emoji: "❓",
  readOnly: true,
  timeoutMs: 130_000,
  example: { question: "Which database should the migration run against?", choices: ["staging", "production"] },
  worstInputs: [
    {
      name: "a question at its 2,000-character cap with four 200-character choices",
      args: () => ({ question: "q".repeat(2_000), choices: Array.from({ length: 4 }, (_, i) => `${i}`.padEnd(200, "c")) }),
    },
    { name: "a 1 MiB question the cap refuses", args: () => ({ question: "x".repeat(1024 * 1024) }) },
  ],
  schema: () =>
    z
      .object({
        question: z.string().trim().min(1).max(2_000).describe("The question for the person, self-contained: they see only this and the choices."),
        choices: z
          .array(z.string().trim().min(1).max(200))
          .max(4)
          .optional()
          .describe("Up to four short answers to pick from; the person may still answer in their own words. Put the one you recommend first."),
      })
      .describe(
        "Asks the person a question and waits for the answer. Use it when you cannot go on without a decision or a fact only they have; not for things you can look up or decide sensibly yourself.",
      ),
  handler: async ({ question, choices = [] }, ctx) => {
    if (ctx.run !== undefined) {
      if (ctx.run.depth > 0)
        return toolError("A delegated task cannot ask the person; decide with your best judgement and say in your answer what you assumed.");
      // The run pauses on this result and asks (src/agent/run-question.ts).
      return { status: AWAITING_INPUT, question, choices };
    }
    const ask = ctx.client.request;
    if (ask !== undefined) return askOverMcp(ask, question, choices);
    return toolError(
      "clarify needs a person to ask: call it inside an agent run (POST /v1/runs, /v1/chat/completions, /chat), or over MCP from a client that supports elicitation.",
    );
  },
});
