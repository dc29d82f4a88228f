/**
 * A run webhook's delivery, decided at acceptance: the run's messages from the verified payload
 * and the reply call's target. Only this plan is stored (not the payload), so it is all a later
 * step has; whatever the webhook's functions throw refuses the delivery (400), as for `map`.
 */
import type { RunPlan } from "./delivery-store.ts";
import { payloadText, RUN_PROMPT_MAX_CHARS, type WebhookInput, type WebhookRunSpec } from "./webhook-registry.ts";

/** The plan for this payload, or undefined when the webhook starts nothing for it. */
export function planRun(run: WebhookRunSpec<unknown>, input: WebhookInput<unknown>): RunPlan | undefined {
  const prompt = run.prompt(input);
  if (prompt === undefined) return undefined;
  if (typeof prompt !== "string" || prompt.trim() === "") throw new Error("run.prompt must return text, or undefined to start nothing");
  const reply = run.reply?.(input);
  if (
    reply !== undefined &&
    (reply.answerArgument === "" || typeof reply.arguments !== "object" || reply.arguments === null || Array.isArray(reply.arguments))
  ) {
    throw new Error(`run.reply for ${reply.name} needs an object of arguments and the name of the argument the answer fills`);
  }
  const system = run.system === undefined ? [] : [{ role: "system" as const, content: run.system }];
  return {
    messages: [...system, { role: "user", content: payloadText(prompt, RUN_PROMPT_MAX_CHARS) }],
    model: run.model,
    max_turns: run.maxTurns,
    toolsets: run.toolsets === undefined ? undefined : [...run.toolsets],
    reply: reply === undefined ? undefined : { name: reply.name, arguments: reply.arguments, answer_argument: reply.answerArgument },
  };
}
