/**
 * The agent-turn scenario's model, inside the bench Worker: fetches to http://model.bench/v1 are
 * answered in the isolate by a script (call `echo` in n turns, then answer), so a run's figures hold
 * toolgate's own work and this stub's small JSON handling, and no model's time or network.
 * The run's model client looks the global fetch up per request, so replacing it here is enough.
 * Runs ask for a stream (`stream: true`): the same message then goes out as the few SSE chunks a
 * real server sends for so short an answer.
 */
export const BENCH_MODEL_HOST = "model.bench";

/** Wraps the global fetch once; other hosts go through untouched. */
export function installScriptedModel(): void {
  const real = globalThis.fetch;
  globalThis.fetch = async function scriptedModelFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    if (new URL(request.url).hostname !== BENCH_MODEL_HOST) return real(request);
    const body = (await request.json()) as { model: string; messages: { role: string; content?: unknown }[]; stream?: boolean };
    // "echo <n>" in the first message: n turns that each call echo, then the answer.
    const wanted = Number(/echo (\d+)/.exec(String(body.messages[0]?.content ?? ""))?.[1] ?? 1);
    const answered = body.messages.filter((m) => m.role === "tool").length >= wanted;
    const message = answered
      ? { role: "assistant", content: "done" }
      : { role: "assistant", content: null, tool_calls: [{ id: "call_bench", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } }] };
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (body.stream === true) {
      const chunk = (extra: Record<string, unknown>) => `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: body.model, ...extra })}\n\n`;
      const delta = answered ? { role: "assistant", content: "done" } : { role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_bench", type: "function", function: { name: "echo", arguments: '{"text":"hi"}' } }] };
      const text = chunk({ choices: [{ index: 0, delta, finish_reason: null }] }) + chunk({ choices: [{ index: 0, delta: {}, finish_reason: answered ? "stop" : "tool_calls" }] }) + chunk({ choices: [], usage }) + "data: [DONE]\n\n";
      return new Response(text, { headers: { "content-type": "text/event-stream" } });
    }
    return Response.json({
      id: "chatcmpl-bench",
      object: "chat.completion",
      created: 0,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: answered ? "stop" : "tool_calls", logprobs: null }],
      usage,
    });
  };
}
