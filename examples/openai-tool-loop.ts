/**
 * An OpenAI SDK tool loop with toolgate's tools: the model gets the tool definitions in OpenAI's
 * shape, and the `tool_calls` it emits go to toolgate exactly as emitted; each result's
 * `message` is appended as it is.
 *
 *   TOOLGATE_KEY=tg_... MODEL_API_KEY=sk-... node examples/openai-tool-loop.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY; MODEL_BASE_URL (any
 * OpenAI-compatible endpoint; OpenAI's by default), MODEL_API_KEY, MODEL, PROMPT.
 */
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { createClient } from "toolgate/client";

const env = process.env;
const toolgate = createClient({ baseUrl: env.TOOLGATE_URL ?? "http://localhost:8787", key: required("TOOLGATE_KEY") });
const openai = new OpenAI({ apiKey: required("MODEL_API_KEY"), ...(env.MODEL_BASE_URL === undefined ? {} : { baseURL: env.MODEL_BASE_URL }) });
const model = env.MODEL ?? "gpt-4.1-mini";

const { tools } = await toolgate.listTools({ format: "openai" });
const messages: ChatCompletionMessageParam[] = [{ role: "user", content: env.PROMPT ?? "Use the echo tool to say hello twice, then tell me what it said." }];
// One session per conversation: approvals and session grants are scoped to it.
const sessionId = crypto.randomUUID();

for (let turn = 0; turn < 8; turn++) {
  const completion = await openai.chat.completions.create({ model, messages, tools: tools as ChatCompletionTool[] });
  const message = completion.choices[0]?.message;
  if (message === undefined) throw new Error("the model answered no choice");
  messages.push(message);
  if (message.tool_calls === undefined || message.tool_calls.length === 0) {
    console.log(message.content);
    process.exit(0);
  }
  // Custom (free-text) tool calls are not toolgate's; function calls go as the model wrote them.
  const calls = message.tool_calls.filter((call) => call.type === "function");
  const { results } = await toolgate.callTools({ session_id: sessionId, tool_calls: calls });
  for (const result of results) messages.push(result.message as ChatCompletionMessageParam);
}
throw new Error("the model was still calling tools after 8 turns");

function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`Set ${name} (see the comment at the top of this file).`);
  return value;
}
