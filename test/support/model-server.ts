/**
 * A scripted OpenAI-compatible model server for the agent-run tests: real HTTP on a loopback
 * port the system chooses (port 0), started on first use by the outbound stand-in
 * (upstream.ts), which forwards http://model.test/... to it. It runs in Node, outside workerd.
 *
 * A test scripts a conversation under an id (POST /__script/<id>) and puts `[script:<id>]` in
 * its first user message, or configures the id as the model's name. Each POST /v1/chat/completions is answered with the turn whose index is the
 * number of assistant messages the request carries, so a repeated request (a retry, a restarted
 * run) gets the same turn; every request is kept (GET /__requests/<id>) so the test can check
 * what toolgate sent: the tools, the assistant messages, the tool messages in order.
 *
 * A turn: `{content?, tool_calls?, usage?}` answers; `fail: [{status, retry_after?}]` answers those
 * errors on its first attempts; `delay_ms` waits before answering. `repeat: true` on the last
 * turn answers it forever (a model that never stops calling tools).
 *
 * A request with `stream: true` is answered as OpenAI streams: real SSE, `chat.completion.chunk`s
 * of `chunk_chars` characters (default 3), so content and each call's `arguments` arrive split
 * (a call's id and name in its first piece), then a chunk with the finish reason, then, when
 * asked with `stream_options.include_usage`, a usage chunk with empty `choices` (none when the
 * turn has no `usage`, as servers that report none), then `[DONE]`. `chunk_delay_ms` spaces the
 * chunks; `cut: {after, attempts?}` drops the connection after that many chunks (on the first
 * `attempts` attempts, default all); `stall_after` sends that many chunks and then nothing.
 * `ignore_stream: true` answers a streamed request with one whole `application/json`
 * chat.completion, as some OpenAI-compatible servers do.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedTurn {
  content?: string | null;
  tool_calls?: { id: string; name: string; arguments: string }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  fail?: { status: number; retry_after?: string }[];
  delay_ms?: number;
  repeat?: boolean;
  chunk_chars?: number;
  chunk_delay_ms?: number;
  cut?: { after: number; attempts?: number };
  stall_after?: number;
  ignore_stream?: boolean;
}

interface Script {
  turns: ScriptedTurn[];
  requests: unknown[];
  attempts: Map<number, number>;
  authorization: string[];
}

interface ServerState {
  scripts: Map<string, Script>;
  port?: Promise<number>;
}

// On globalThis: vitest may load this module more than once in its process; one server serves all.
const holder = globalThis as { __toolgateModelServer?: ServerState };
const state: ServerState = (holder.__toolgateModelServer ??= { scripts: new Map<string, Script>() });

/** The loopback port of the server, starting it on first use. */
export function modelServerPort(): Promise<number> {
  state.port ??= new Promise<number>((resolve) => {
    const server: Server = createServer((request, response) => {
      handle(request).then(
        ({ status, body, headers, stream }) => {
          if (stream !== undefined) return void writeStream(response, stream).catch(() => response.destroy());
          response.writeHead(status, { "content-type": "application/json", ...headers });
          response.end(JSON.stringify(body));
        },
        // A caller that hangs up mid-request (a test file's teardown aborting its Durable Objects)
        // rejects the body read: nothing is left to answer, and the rejection must not reach
        // vitest's process, where an unhandled one ends the whole run.
        () => response.destroy(),
      );
    });
    server.unref();
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
  return state.port;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

type Answer = { status: number; body: unknown; headers?: Record<string, string>; stream?: ChunkPlan };

/** A streamed answer: its chunks, their spacing, and where the connection breaks or goes quiet. */
interface ChunkPlan {
  chunks: unknown[];
  delayMs: number;
  cutAfter: number | undefined;
  stallAfter: number | undefined;
}

async function writeStream(response: ServerResponse, plan: ChunkPlan): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [i, chunk] of plan.chunks.entries()) {
    if (i === plan.cutAfter) {
      // Let what was written reach the client first, as a connection lost mid-answer would.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return void response.destroy();
    }
    // Quiet but open: the client's idle timeout has to end it. Dropped later all the same, so
    // no socket outlives the test run (a client's abort need not reach this side).
    if (i === plan.stallAfter) return void setTimeout(() => response.destroy(), 5_000).unref();
    if (plan.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  response.end("data: [DONE]\n\n");
}

const pieces = (text: string, size: number): string[] =>
  text === "" ? [] : Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** The chunks of one streamed turn, as OpenAI sends them. */
function chunksOf(turn: ScriptedTurn, base: Record<string, unknown>, includeUsage: boolean): unknown[] {
  const size = turn.chunk_chars ?? 3;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const calls = (turn.tool_calls ?? []).flatMap((call, index) => {
    const args = pieces(call.arguments, size);
    const first = { index, id: call.id, type: "function", function: { name: call.name, arguments: args[0] ?? "" } };
    return [first, ...args.slice(1).map((part) => ({ index, function: { arguments: part } }))].map((piece) => chunk({ tool_calls: [piece] }));
  });
  return [
    chunk({ role: "assistant", content: "" }),
    ...pieces(turn.content ?? "", size).map((content) => chunk({ content })),
    ...calls,
    chunk({}, turn.tool_calls === undefined ? "stop" : "tool_calls"),
    ...(includeUsage && turn.usage !== undefined ? [{ ...base, choices: [], usage: turn.usage }] : []),
  ];
}

async function handle(request: IncomingMessage): Promise<Answer> {
  const url = new URL(request.url ?? "/", "http://localhost");
  const scriptId = /^\/__script\/([\w-]+)$/.exec(url.pathname)?.[1];
  if (scriptId !== undefined && request.method === "POST") {
    const { turns } = JSON.parse(await readBody(request)) as { turns: ScriptedTurn[] };
    state.scripts.set(scriptId, { turns, requests: [], attempts: new Map(), authorization: [] });
    return { status: 200, body: { ok: true } };
  }
  const requestsOf = /^\/__requests\/([\w-]+)$/.exec(url.pathname)?.[1];
  if (requestsOf !== undefined) {
    const script = state.scripts.get(requestsOf);
    return { status: 200, body: { requests: script?.requests ?? [], authorization: script?.authorization ?? [] } };
  }
  if (url.pathname !== "/v1/chat/completions" || request.method !== "POST") return { status: 404, body: { error: { message: `no route ${url.pathname}` } } };
  const body = JSON.parse(await readBody(request)) as {
    model: string;
    messages: { role: string; content?: unknown }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
  // The first message carrying a marker names the script (a delegated run opens with a system prompt).
  // Without a marker, a script registered under the request's model name answers (a tool whose
  // fixed example question can carry no marker: the contract suite's vision_analyze).
  const id =
    body.messages.map((m) => /\[script:([\w-]+)\]/.exec(JSON.stringify(m.content ?? ""))?.[1]).find((found) => found !== undefined) ??
    (state.scripts.has(body.model) ? body.model : undefined);
  const script = id === undefined ? undefined : state.scripts.get(id);
  if (script === undefined) return { status: 400, body: { error: { message: "no [script:<id>] in the first message, or an unknown script" } } };
  script.requests.push(body);
  script.authorization.push(String(request.headers.authorization ?? ""));
  const index = body.messages.filter((m) => m.role === "assistant").length;
  const last = script.turns[script.turns.length - 1];
  const turn = script.turns[index] ?? (last?.repeat === true ? last : undefined);
  if (turn === undefined) return { status: 500, body: { error: { message: `script ${id} has no turn ${index}` } } };
  const attempt = script.attempts.get(index) ?? 0;
  script.attempts.set(index, attempt + 1);
  const failure = turn.fail?.[attempt];
  if (failure !== undefined)
    return {
      status: failure.status,
      body: { error: { message: `scripted failure ${failure.status}` } },
      headers: failure.retry_after === undefined ? {} : { "retry-after": failure.retry_after },
    };
  if (turn.delay_ms !== undefined) await new Promise((resolve) => setTimeout(resolve, turn.delay_ms));
  if (body.stream === true && turn.ignore_stream !== true) {
    const base = { id: `chatcmpl-scripted-${index}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model };
    const cuts = turn.cut !== undefined && attempt < (turn.cut.attempts ?? Number.POSITIVE_INFINITY);
    return {
      status: 200,
      body: null,
      stream: {
        chunks: chunksOf(turn, base, body.stream_options?.include_usage === true),
        delayMs: turn.chunk_delay_ms ?? 0,
        cutAfter: cuts ? turn.cut?.after : undefined,
        stallAfter: turn.stall_after,
      },
    };
  }
  const toolCalls = turn.tool_calls?.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
  return {
    status: 200,
    body: {
      id: `chatcmpl-scripted-${index}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: turn.content ?? null, ...(toolCalls === undefined ? {} : { tool_calls: toolCalls }) },
          finish_reason: toolCalls === undefined ? "stop" : "tool_calls",
          logprobs: null,
        },
      ],
      ...(turn.usage === undefined ? {} : { usage: turn.usage }),
    },
  };
}

/** Forwards a request for http://model.test/... to the server over loopback HTTP. */
export async function forwardToModelServer(request: Request): Promise<Response> {
  const port = await modelServerPort();
  const url = new URL(request.url);
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  return fetch(`http://127.0.0.1:${port}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, signal: request.signal });
}
