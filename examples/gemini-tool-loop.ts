/**
 * A Gemini tool loop (Google's @google/genai SDK) with toolgate's tools: the model gets
 * `functionDeclarations` in Gemini's schema subset, its `functionCall` parts go to toolgate as
 * they are, and the `functionResponse` parts toolgate answers make up the next user turn.
 *
 *   TOOLGATE_KEY=tg_... MODEL_API_KEY=... node examples/gemini-tool-loop.ts
 *
 * Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY; MODEL_BASE_URL (Google's by
 * default), MODEL_API_KEY, MODEL, PROMPT.
 */
import { type Content, type FunctionDeclaration, GoogleGenAI, type Part } from "@google/genai";
import { createClient } from "toolgate/client";

const env = process.env;
const toolgate = createClient({ baseUrl: env.TOOLGATE_URL ?? "http://localhost:8787", key: required("TOOLGATE_KEY") });
const gemini = new GoogleGenAI({
  apiKey: required("MODEL_API_KEY"),
  ...(env.MODEL_BASE_URL === undefined ? {} : { httpOptions: { baseUrl: env.MODEL_BASE_URL } }),
});
const model = env.MODEL ?? "gemini-2.5-flash";

const { tools } = await toolgate.listTools({ format: "gemini" });
const contents: Content[] = [{ role: "user", parts: [{ text: env.PROMPT ?? "Use the echo tool to say hello twice, then tell me what it said." }] }];
const sessionId = crypto.randomUUID();

for (let turn = 0; turn < 8; turn++) {
  const response = await gemini.models.generateContent({ model, contents, config: { tools: [{ functionDeclarations: tools as FunctionDeclaration[] }] } });
  const reply = response.candidates?.[0]?.content;
  if (reply === undefined) throw new Error("the model answered no candidate");
  contents.push(reply);
  const calls = (reply.parts ?? []).filter((part) => part.functionCall !== undefined);
  if (calls.length === 0) {
    console.log(response.text);
    process.exit(0);
  }
  const { results } = await toolgate.callTools({ session_id: sessionId, tool_calls: calls as { functionCall: { name: string } }[] });
  contents.push({ role: "user", parts: results.map((result) => result.message as Part) });
}
throw new Error("the model was still calling tools after 8 turns");

function required(name: string): string {
  const value = env[name];
  if (value === undefined || value === "") throw new Error(`Set ${name} (see the comment at the top of this file).`);
  return value;
}
