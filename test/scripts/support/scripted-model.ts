/**
 * A model that plays the same two turns whoever asks, over real HTTP on loopback (port 0), in
 * both OpenAI's chat-completions shape (`.../chat/completions`) and Anthropic's Messages shape
 * (`.../messages`): while the conversation holds no tool result, it asks for one `echo` call
 * (with the string "2" an OpenAI model would send); once it does, it answers with that result's
 * text. A request that does not offer `echo` among its tools gets a 400, as a real model API
 * refuses a call of a tool it was not given.
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

/** Starts the model on an ephemeral loopback port; `delayMs` before each answer. */
export async function startScriptedModel({ delayMs = 0, callFor = () => undefined }: { delayMs?: number; callFor?: CallFor } = {}): Promise<ScriptedModel> {
  const requests: ScriptedModel["requests"] = [];
  const server = createServer((request, response) => {
    // A delay keeps a run going long enough for a page to watch it progress.
    void new Promise((resolve) => setTimeout(resolve, delayMs)).then(() => answer(request, response, requests, callFor)).catch((error: unknown) => send(response, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error === undefined ? resolve() : reject(error)))),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, requests: ScriptedModel["requests"], callFor: CallFor): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const path = new URL(request.url ?? "/", "http://model").pathname;
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Json;
  requests.push({ path, body });
  if (request.method !== "POST") return send(response, 405, { error: { message: `${request.method} ${path}: only POST` } });
  if (path.endsWith("/chat/completions")) return openaiTurn(body, response, callFor);
  if (path.endsWith("/messages")) return anthropicTurn(body, response);
  return send(response, 404, { error: { message: `no route ${path}` } });
}

function offersEcho(tools: unknown, nameOf: (tool: Json) => unknown): boolean {
  return Array.isArray(tools) && tools.some((tool) => nameOf(tool as Json) === "echo");
}

function openaiTurn(body: Json, response: ServerResponse, callFor: CallFor): void {
  if (!offersEcho(body.tools, (tool) => (tool.function as Json | undefined)?.name)) return send(response, 400, { error: { message: "tools: echo is not offered" } });
  const messages = body.messages as Json[];
  const toolMessage = messages.findLast((message) => message.role === "tool");
  const first = messages.find((message) => message.role === "user")?.content;
  const call = callFor(typeof first === "string" ? first : "") ?? { name: "echo", arguments: { text: "hello", times: "2" } };
  const message =
    toolMessage === undefined
      ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] }
      : { role: "assistant", content: `${ANSWER_PREFIX}${String(toolMessage.content)}` };
  send(response, 200, {
    id: `chatcmpl-${messages.length}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message, finish_reason: toolMessage === undefined ? "tool_calls" : "stop", logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
}

function anthropicTurn(body: Json, response: ServerResponse): void {
  if (!offersEcho(body.tools, (tool) => tool.name)) return send(response, 400, { type: "error", error: { type: "invalid_request_error", message: "tools: echo is not offered" } });
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

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
