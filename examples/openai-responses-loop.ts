/**
 * An OpenAI Responses API tool loop with toolgate's tools: the model gets flat `function` tools,
 * its `function_call` output items go to toolgate as they are, and the `function_call_output`
 * items toolgate answers are appended to `input` as they are.
 *
 *   TOOLGATE_KEY=tg_... MODEL_API_KEY=sk-... node examples/openai-responses-loop.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY; MODEL_BASE_URL (OpenAI's by
 * default), MODEL_API_KEY, MODEL, PROMPT.
 */
import OpenAI from "openai";
import type { FunctionTool, ResponseInputItem } from "openai/resources/responses/responses";
import { createClient } from "toolgate/client";

const env = process.env;
const toolgate = createClient({ baseUrl: env.TOOLGATE_URL ?? "http://localhost:8787", key: required("TOOLGATE_KEY") });
const openai = new OpenAI({ apiKey: required("MODEL_API_KEY"), ...(env.MODEL_BASE_URL === undefined ? {} : { baseURL: env.MODEL_BASE_URL }) });
const model = env.MODEL ?? "gpt-4.1-mini";

const { tools } = await toolgate.listTools({ format: "responses" });
const input: ResponseInputItem[] = [{ role: "user", content: env.PROMPT ?? "Use the echo tool to say hello twice, then tell me what it said." }];
const sessionId = crypto.randomUUID();

for (let turn = 0; turn < 8; turn++) {
  // Stateless (store: false): the whole conversation goes in `input` each turn.
  const response = await openai.responses.create({ model, input, tools: tools as FunctionTool[], store: false });
  // The output goes back as it came (the SDK's output and input unions differ only in a computer
  // call's status, which this loop never sees).
  input.push(...(response.output as ResponseInputItem[]));
  const calls = response.output.filter((item) => item.type === "function_call");
  if (calls.length === 0) {
    console.log(response.output_text);
    process.exit(0);
  }
  const { results } = await toolgate.callTools({ session_id: sessionId, tool_calls: calls });
  for (const result of results) input.push(result.message as ResponseInputItem);
}
throw new Error("the model was still calling tools after 8 turns");

function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`Set ${name} (see the comment at the top of this file).`);
  return value;
}
