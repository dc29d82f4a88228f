/**
 * A model that plays the same two turns whoever asks, over real HTTP on loopback (port 0), in
 * OpenAI's chat-completions shape (`.../chat/completions`), Anthropic's Messages shape
 * (`.../messages`), OpenAI's Responses API (`.../responses`) and Gemini's generateContent
 * (`...:generateContent`): while the conversation holds no tool result, it asks for one `echo` call
 * (with the string "2" an OpenAI model would send); once it does, it answers with that result's
 * text. A request that does not offer `echo` among its tools gets a 400, as a real model API
 * refuses a call of a tool it was not given. An OpenAI request with `stream: true` is answered
 * as OpenAI streams (SSE `chat.completion.chunk`s, the text in pieces of a few characters
 * `chunkDelayMs` apart, usage last when `stream_options.include_usage` asks for it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const ANSWER_PREFIX = "The echo tool said: ";

export interface ScriptedModel {
  /** e.g. `http://127.0.0.1:41234` */
  origin: string;
  /** Every request body, in order, with its path. */
  requests: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** A tool call the model makes instead of `echo`, chosen by the conversation's first user message. */
export type CallFor = (firstUserText: string) => { name: string; arguments: Json } | undefined;

/** Starts the model on an ephemeral loopback port; `delayMs` before each answer, `chunkDelayMs` between streamed chunks. */
export async function startScriptedModel({
  delayMs = 0,
  chunkDelayMs = 0,
  callFor = () => undefined,
}: {
  delayMs?: number;
  chunkDelayMs?: number;
  callFor?: CallFor;
} = {}): Promise<ScriptedModel> {
  const requests: ScriptedModel["requests"] = [];
  const server = createServer((request, response) => {
    // A delay keeps a run going long enough for a page to watch it progress.
    void new Promise((resolve) => setTimeout(resolve, delayMs))
      .then(() => answer(request, response, requests, callFor, chunkDelayMs))
      .catch((error: unknown) => send(response, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error === undefined ? resolve() : reject(error)))),
  };
}

async function answer(
  request: IncomingMessage,
  response: ServerResponse,
  requests: ScriptedModel["requests"],
  callFor: CallFor,
  chunkDelayMs: number,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const path = new URL(request.url ?? "/", "http://model").pathname;
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Json;
  requests.push({ path, body });
  if (request.method !== "POST") return send(response, 405, { error: { message: `${request.method} ${path}: only POST` } });
  if (path.endsWith("/chat/completions")) return openaiTurn(body, response, callFor, chunkDelayMs);
  if (path.endsWith("/messages")) return anthropicTurn(body, response);
  if (path.endsWith("/responses")) return responsesTurn(body, response);
  if (path.endsWith(":generateContent")) return geminiTurn(body, response);
  return send(response, 404, { error: { message: `no route ${path}` } });
}

function offersEcho(tools: unknown, nameOf: (tool: Json) => unknown): boolean {
  return Array.isArray(tools) && tools.some((tool) => nameOf(tool as Json) === "echo");
}

async function openaiTurn(body: Json, response: ServerResponse, callFor: CallFor, chunkDelayMs: number): Promise<void> {
  if (!offersEcho(body.tools, (tool) => (tool.function as Json | undefined)?.name))
    return send(response, 400, { error: { message: "tools: echo is not offered" } });
  const messages = body.messages as Json[];
  const toolMessage = messages.findLast((message) => message.role === "tool");
  const first = messages.find((message) => message.role === "user")?.content;
  const call = callFor(typeof first === "string" ? first : "") ?? { name: "echo", arguments: { text: "hello", times: "2" } };
  const message =
    toolMessage === undefined
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }],
        }
      : { role: "assistant", content: `${ANSWER_PREFIX}${String(toolMessage.content)}` };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (body.stream === true)
    return streamTurn(
      response,
      { id: `chatcmpl-${messages.length}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model },
      message,
      (body.stream_options as Json | undefined)?.include_usage === true ? usage : undefined,
      chunkDelayMs,
    );
  send(response, 200, {
    id: `chatcmpl-${messages.length}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message, finish_reason: toolMessage === undefined ? "tool_calls" : "stop", logprobs: null }],
    usage,
  });
}

/** The most pieces one turn's text is streamed in. */
const MAX_PIECES = 16;

/** The message as OpenAI streams it: its text in pieces, a tool call whole, the finish reason, then usage. */
async function streamTurn(
  response: ServerResponse,
  base: Json,
  message: { content: string | null; tool_calls?: Json[] },
  usage: Json | undefined,
  chunkDelayMs: number,
): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: Json, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const text = message.content ?? "";
  // Pieces of four characters, as a model streams, but never more than MAX_PIECES: a turn that
  // repeats a long tool result (a denial's envelope) took 12 s at the chat page test's pacing.
  const size = Math.max(4, Math.ceil(text.length / MAX_PIECES));
  const pieces = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => chunk({ content: text.slice(i * size, i * size + size) }));
  const calls = (message.tool_calls ?? []).map((call, index) => chunk({ tool_calls: [{ index, ...call }] }));
  const chunks = [
    chunk({ role: "assistant", content: "" }),
    ...pieces,
    ...calls,
    chunk({}, calls.length > 0 ? "tool_calls" : "stop"),
    ...(usage === undefined ? [] : [{ ...base, choices: [], usage }]),
  ];
  for (const item of chunks) {
    if (chunkDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, chunkDelayMs));
    response.write(`data: ${JSON.stringify(item)}\n\n`);
  }
  response.end("data: [DONE]\n\n");
}

function anthropicTurn(body: Json, response: ServerResponse): void {
  if (!offersEcho(body.tools, (tool) => tool.name))
    return send(response, 400, { type: "error", error: { type: "invalid_request_error", message: "tools: echo is not offered" } });
  const messages = body.messages as Json[];
  const last = messages.at(-1)?.content;
  const toolResult = Array.isArray(last) ? (last as Json[]).find((block) => block.type === "tool_result") : undefined;
  const content =
    toolResult === undefined
      ? [{ type: "tool_use", id: "toolu_1", name: "echo", input: { text: "hello", times: 2 } }]
      : [{ type: "text", text: `${ANSWER_PREFIX}${String(toolResult.content)}` }];
  send(response, 200, {
    id: `msg_${messages.length}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content,
    stop_reason: toolResult === undefined ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  });
}

/**
 * OpenAI's Responses API: a `function_call` item first; then, once `input` carries that call and
 * a `function_call_output` for its call_id with a string `output` (what the API requires), the
 * answer. Anything else in their place is refused with a 400 naming what is wrong.
 */
function responsesTurn(body: Json, response: ServerResponse): void {
  if (!offersEcho(body.tools, (tool) => tool.name)) return send(response, 400, { error: { message: "tools: echo is not offered" } });
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const outputs = input.filter((item) => item.type === "function_call_output");
  const problem = outputs.length === 0 ? undefined : responsesOutputProblem(input, outputs);
  if (problem !== undefined) return send(response, 400, { error: { message: problem, type: "invalid_request_error" } });
  const output =
    outputs.length === 0
      ? [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "echo", arguments: JSON.stringify({ text: "hello", times: "2" }), status: "completed" }]
      : [
          {
            type: "message",
            id: "msg_1",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: `${ANSWER_PREFIX}${String(outputs[0]?.output)}`, annotations: [] }],
          },
        ];
  send(response, 200, {
    id: `resp_${input.length}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    status: "completed",
    output,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  });
}

function responsesOutputProblem(input: Json[], outputs: Json[]): string | undefined {
  const [output] = outputs;
  if (outputs.length !== 1 || output === undefined) return `input: ${outputs.length} function_call_output items for one call`;
  if (Object.keys(output).sort().join() !== "call_id,output,type") return `function_call_output: unexpected fields ${Object.keys(output).join(", ")}`;
  if (output.call_id !== "call_1") return `function_call_output.call_id: ${String(output.call_id)} matches no function_call`;
  if (typeof output.output !== "string") return "function_call_output.output: must be a string";
  if (!input.some((item) => item.type === "function_call" && item.call_id === "call_1")) return "input: the function_call item is missing before its output";
  return undefined;
}

/**
 * Gemini's generateContent: a `functionCall` part first; then, once the last user turn carries a
 * `functionResponse` part for it (same id and name, `response` an object with `output` or
 * `error`), the answer. Anything else there is refused with a 400 naming what is wrong.
 */
function geminiTurn(body: Json, response: ServerResponse): void {
  const declarations = ((body.tools as Json[] | undefined) ?? []).flatMap((tool) => (tool.functionDeclarations as Json[] | undefined) ?? []);
  if (!offersEcho(declarations, (declaration) => declaration.name))
    return send(response, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "tools: echo is not declared" } });
  const contents = (body.contents as Json[] | undefined) ?? [];
  const parts = ((contents.at(-1)?.parts as Json[] | undefined) ?? []).filter((part) => part.functionResponse !== undefined);
  const problem = parts.length === 0 ? undefined : geminiResponseProblem(contents, parts);
  if (problem !== undefined) return send(response, 400, { error: { code: 400, status: "INVALID_ARGUMENT", message: problem } });
  const output = ((parts[0]?.functionResponse as Json | undefined)?.response as Json | undefined)?.output;
  const reply =
    parts.length === 0
      ? [{ functionCall: { id: "gem_1", name: "echo", args: { text: "hello", times: 2 } } }]
      : [{ text: `${ANSWER_PREFIX}${JSON.stringify(output)}` }];
  send(response, 200, {
    candidates: [{ content: { role: "model", parts: reply }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  });
}

function geminiResponseProblem(contents: Json[], parts: Json[]): string | undefined {
  const last = contents.at(-1);
  if (last?.role !== "user") return `contents: the functionResponse turn has role ${String(last?.role)}, not user`;
  if (parts.length !== 1) return `contents: ${parts.length} functionResponse parts for one call`;
  const answer = parts[0]?.functionResponse as Json;
  if (answer.id !== "gem_1" || answer.name !== "echo") return `functionResponse: id ${String(answer.id)} and name ${String(answer.name)} match no functionCall`;
  const result = answer.response;
  if (typeof result !== "object" || result === null || Array.isArray(result)) return "functionResponse.response: must be an object";
  if (!("output" in result) && !("error" in result)) return "functionResponse.response: neither output nor error";
  const asked = contents.at(-2);
  if (asked?.role !== "model" || !((asked.parts as Json[] | undefined) ?? []).some((part) => part.functionCall !== undefined))
    return "contents: the model's functionCall turn is missing before its response";
  return undefined;
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
