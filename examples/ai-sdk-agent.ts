/**
 * An AI SDK agent using toolgate's tools: each tool toolgate lists (OpenAI's shape: a name, a
 * description, a JSON Schema) becomes an AI SDK tool whose `execute` runs the call through
 * toolgate; the SDK runs the loop. Any OpenAI-compatible model endpoint works.
 *
 *   TOOLGATE_KEY=tg_... MODEL_BASE_URL=https://api.openai.com/v1 MODEL_API_KEY=sk-... node examples/ai-sdk-agent.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY; MODEL_BASE_URL, MODEL_API_KEY,
 * MODEL, PROMPT.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type JSONSchema7, jsonSchema, stepCountIs, type ToolSet, tool } from "ai";
import { createClient } from "toolgate/client";

const env = process.env;
const toolgate = createClient({ baseUrl: env.TOOLGATE_URL ?? "http://localhost:8787", key: required("TOOLGATE_KEY") });
const provider = createOpenAICompatible({ name: "model", baseURL: required("MODEL_BASE_URL"), apiKey: required("MODEL_API_KEY") });
const sessionId = crypto.randomUUID();

interface OpenAIToolDefinition {
  function: { name: string; description?: string; parameters: JSONSchema7 };
}

const { tools: definitions } = await toolgate.listTools({ format: "openai" });
const tools: ToolSet = {};
for (const { function: definition } of definitions as OpenAIToolDefinition[]) {
  tools[definition.name] = tool({
    description: definition.description ?? "",
    inputSchema: jsonSchema(definition.parameters),
    // The result's content is toolgate's JSON text for the model: the tool's result, or an error
    // envelope saying what to fix, which the model reads either way.
    execute: async (input, { toolCallId }) => {
      const { results } = await toolgate.callTools({
        session_id: sessionId,
        tool_calls: [{ id: toolCallId, type: "function", function: { name: definition.name, arguments: JSON.stringify(input) } }],
      });
      // An OpenAI-shaped call is answered with an OpenAI tool message.
      const message = results[0]?.message;
      return message !== undefined && "content" in message ? message.content : undefined;
    },
  });
}

const { text } = await generateText({
  model: provider.chatModel(env.MODEL ?? "gpt-4.1-mini"),
  tools,
  stopWhen: stepCountIs(8),
  prompt: env.PROMPT ?? "Use the echo tool to say hello twice, then tell me what it said.",
});
console.log(text);

function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`Set ${name} (see the comment at the top of this file).`);
  return value;
}
