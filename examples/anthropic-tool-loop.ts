/**
 * An Anthropic SDK tool loop with toolgate's tools: the model gets the definitions in Anthropic's
 * shape, its `tool_use` blocks go to toolgate as they are, and the `tool_result` blocks toolgate
 * answers make up the next user turn.
 *
 *   TOOLGATE_KEY=tg_... MODEL_API_KEY=sk-ant-... node examples/anthropic-tool-loop.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY; MODEL_BASE_URL (Anthropic's
 * by default), MODEL_API_KEY, MODEL, PROMPT.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { createClient } from "toolgate/client";

const env = process.env;
const toolgate = createClient({ baseUrl: env.TOOLGATE_URL ?? "http://localhost:8787", key: required("TOOLGATE_KEY") });
const anthropic = new Anthropic({ apiKey: required("MODEL_API_KEY"), ...(env.MODEL_BASE_URL === undefined ? {} : { baseURL: env.MODEL_BASE_URL }) });
const model = env.MODEL ?? "claude-sonnet-4-5";

const { tools } = await toolgate.listTools({ format: "anthropic" });
const messages: MessageParam[] = [{ role: "user", content: env.PROMPT ?? "Use the echo tool to say hello twice, then tell me what it said." }];
const sessionId = crypto.randomUUID();

for (let turn = 0; turn < 8; turn++) {
  const reply = await anthropic.messages.create({ model, max_tokens: 1024, messages, tools: tools as Tool[] });
  messages.push({ role: "assistant", content: reply.content });
  const uses = reply.content.filter((block) => block.type === "tool_use");
  if (uses.length === 0) {
    console.log(reply.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n"));
    process.exit(0);
  }
  const { results } = await toolgate.callTools({ session_id: sessionId, tool_calls: uses.map(({ type, id, name, input }) => ({ type, id, name, input })) });
  messages.push({ role: "user", content: results.map((result) => result.message as ToolResultBlockParam) });
}
throw new Error("the model was still calling tools after 8 turns");

function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`Set ${name} (see the comment at the top of this file).`);
  return value;
}
