/**
 * The agent-turn scenario's model, inside the bench Worker: fetches to http://model.bench/v1 are
 * answered in the isolate by a script (call `echo` in n turns, then answer), so a run's figures hold
 * toolgate's own work and no model's time or network.
 *
 * It runs in the measured isolate, so its CPU counts in the figure although it is "the model",
 * which the target excludes: it is kept as cheap as a stub can be. It takes the whole
 * request body as text (the string the client sends, read from the stream otherwise), and reads
 * it without parsing it: n from the first "echo <n>" (the user's message, ahead of the tool
 * definitions in the body), the turns done from the count of `"role":"tool"` messages, and
 * whether a stream was asked for; its four possible answers are built once.
 * The run's model client looks the global fetch up per request, so replacing it here is enough.
 */
export const BENCH_MODEL_HOST = "model.bench";

const ORIGIN = `http://${BENCH_MODEL_HOST}/`;

/** The four answers (a call of echo, or "done"; whole or as the few SSE chunks a real server sends), as text. */
function answers(): { whole: [string, string]; stream: [string, string] } {
  const call = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_bench", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } }],
  };
  const done = { role: "assistant", content: "done" };
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const head = { id: "chatcmpl-bench", created: 0, model: "bench-model" };
  const whole = (message: object, finish: string) =>
    JSON.stringify({ ...head, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage });
  const chunk = (extra: object) => `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", ...extra })}\n\n`;
  const stream = (delta: object, finish: string) =>
    chunk({ choices: [{ index: 0, delta, finish_reason: null }] }) +
    chunk({ choices: [{ index: 0, delta: {}, finish_reason: finish }] }) +
    chunk({ choices: [], usage }) +
    "data: [DONE]\n\n";
  const streamedCall = { ...call, tool_calls: call.tool_calls.map((c) => ({ index: 0, ...c })) };
  return { whole: [whole(call, "tool_calls"), whole(done, "stop")], stream: [stream(streamedCall, "tool_calls"), stream(done, "stop")] };
}

function count(text: string, part: string): number {
  let n = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) n++;
  return n;
}

/** Wraps the global fetch once; other hosts go through untouched. */
export function installScriptedModel(): void {
  const real = globalThis.fetch;
  const { whole, stream } = answers();
  const json = { headers: { "content-type": "application/json" } };
  const sse = { headers: { "content-type": "text/event-stream" } };
  globalThis.fetch = async function scriptedModelFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(ORIGIN)) return real(input, init);
    const body = typeof init?.body === "string" ? init.body : await new Request(input, init).text();
    // "echo <n>" in the first message: n turns that each call echo, then the answer.
    const wanted = Number(/echo (\d+)/.exec(body)?.[1] ?? 1);
    const answered: 0 | 1 = count(body, '"role":"tool"') >= wanted ? 1 : 0;
    return body.includes('"stream":true') ? new Response(stream[answered], sse) : new Response(whole[answered], json);
  };
}
