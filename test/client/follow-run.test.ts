/**
 * The typed client's agent-run methods inside workerd, against the Worker's real /v1/runs routes
 * and the scripted model of test/agent/ (http://model.test): start a run and follow its events
 * to the end, resume after the connection drops mid-stream, hand the model's streamed text to
 * onDelta (once, even across a drop mid-turn), cancel, and be refused another key's run.
 */
import { exports } from "cloudflare:workers";
import { createClient, type RunDelta, type RunEvent, type ToolgateClient, ToolgateRequestError } from "toolgate/client";
import { beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../support/create-key.ts";
import { marker, scriptModel } from "../support/model-script.ts";

const BASE_URL = "https://toolgate.test";
const send = (request: Request) => exports.default.fetch(request);
const echo = (id: string, text: string) => ({ id, name: "echo", arguments: JSON.stringify({ text }) });

let agent: ToolgateClient;

beforeAll(async () => {
  const { key } = await createKey({ name: "client-runs-agent", role: "agent" });
  agent = createClient({ baseUrl: BASE_URL, key, fetch: send });
});

async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const seen: RunEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/**
 * The Worker's answer with its body cut off, as a dropped connection does: the bytes up to the
 * end of the first SSE message `cutsAfter` picks, then a network error.
 */
function dropAfter(response: Response, cutsAfter: (message: string) => boolean): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      text += done ? "" : decoder.decode(value, { stream: true });
      let end = text.indexOf("\n\n", sent);
      while (end !== -1 && !cutsAfter(text.slice(sent, end))) end = text.indexOf("\n\n", end + 2);
      if (end === -1 && !done) {
        // No message to cut after yet: pass on what is complete, keep the rest for the next read.
        const whole = text.lastIndexOf("\n\n") + 2;
        if (whole > sent) controller.enqueue(new TextEncoder().encode(text.slice(sent, whole)));
        sent = Math.max(sent, whole);
        return;
      }
      controller.enqueue(new TextEncoder().encode(text.slice(sent, end === -1 ? text.length : end + 2)));
      await reader.cancel();
      controller.error(new TypeError("network connection lost"));
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/**
 * A client of a new key whose first event stream drops after the message `cutsAfter` picks;
 * `sent` collects the Last-Event-ID of each stream it opens.
 */
async function droppingFirstStream(name: string, cutsAfter: (message: string) => boolean): Promise<{ flaky: ToolgateClient; sent: (string | null)[] }> {
  const sent: (string | null)[] = [];
  const flaky = createClient({
    baseUrl: BASE_URL,
    key: (await createKey({ name, role: "agent" })).key,
    fetch: async (request) => {
      const response = await send(request);
      if (!new URL(request.url).pathname.endsWith("/events")) return response;
      sent.push(request.headers.get("last-event-id"));
      return sent.length === 1 ? dropAfter(response, cutsAfter) : response;
    },
  });
  return { flaky, sent };
}

describe("the typed client's agent runs", () => {
  it("starts a run and follows its events in order until run.finished", async () => {
    const script = await scriptModel([{ tool_calls: [echo("cr_1", "followed")] }, { content: "It said followed." }]);
    const started = await agent.startRun({ input: `${marker(script)} follow me`, session_id: "client-runs-follow" });
    expect(started).toMatchObject({ status: "running", session_id: "client-runs-follow" });

    const events = await collect(agent.followRun(started.id));
    expect(events.map((event) => event.type)).toEqual(["run.started", "model.turn", "tool.result", "model.turn", "run.finished"]);
    expect(events.map((event) => event.id)).toEqual(["1", "2", "3", "4", "5"]);
    expect(events[2]?.data).toMatchObject({ id: "cr_1", tool: "echo", status: "ok", content: JSON.stringify({ text: "followed" }) });
    expect(events[4]?.data).toMatchObject({ status: "completed", answer: "It said followed." });
    expect(await agent.getRun(started.id)).toMatchObject({ status: "completed", answer: "It said followed.", turns: 2, tool_calls: 1 });
  });

  it("resumes with Last-Event-ID after the connection drops, seeing each event once", async () => {
    const script = await scriptModel([{ tool_calls: [echo("cr_2", "dropped")] }, { content: "Resumed." }]);
    const { flaky, sent } = await droppingFirstStream("client-runs-flaky", () => true);
    const { id } = await flaky.startRun({ input: `${marker(script)} drop me` });
    const events = await collect(flaky.followRun(id));
    expect(sent).toEqual([null, "1"]);
    expect(events.map((event) => [event.id, event.type])).toEqual([
      ["1", "run.started"],
      ["2", "model.turn"],
      ["3", "tool.result"],
      ["4", "model.turn"],
      ["5", "run.finished"],
    ]);
  });

  it("hands the model's streamed text to onDelta before the turn's model.turn, in order", async () => {
    const answer = "Streamed to the caller piece by piece.";
    const script = await scriptModel([{ content: answer, chunk_chars: 4, chunk_delay_ms: 20 }]);
    const { id } = await agent.startRun({ input: `${marker(script)} stream to me` });
    const seen: (RunDelta | RunEvent)[] = [];
    for await (const event of agent.followRun(id, { onDelta: (delta) => seen.push(delta) })) seen.push(event);

    const deltas = seen.filter((item): item is RunDelta => "turn" in item && "text" in item);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((delta) => delta.content).join("")).toBe(answer);
    expect(deltas.map((delta) => delta.text)).toEqual(
      deltas.map((_, i) =>
        deltas
          .slice(0, i + 1)
          .map((delta) => delta.content)
          .join(""),
      ),
    );
    expect(deltas.every((delta) => delta.turn === 1 && delta.seq === 1)).toBe(true);
    // Every piece comes between run.started and the model.turn that carries the whole message.
    const kinds = seen.map((item) => ("type" in item ? item.type : "delta"));
    expect(kinds[0]).toBe("run.started");
    expect(kinds.slice(1, 1 + deltas.length).every((kind) => kind === "delta")).toBe(true);
    expect(kinds.slice(1 + deltas.length)).toEqual(["model.turn", "run.finished"]);
    expect(seen.find((item) => "type" in item && item.type === "model.turn")).toMatchObject({ data: { content: answer } });
  });

  it("resumes after a drop mid-turn without handing onDelta any text twice", async () => {
    const answer = "This answer is cut off midway and then resumed.";
    const script = await scriptModel([{ content: answer, chunk_chars: 3, chunk_delay_ms: 40 }]);
    // Dropped after the second piece of text: the stored events stop at run.started (id 1).
    let pieces = 0;
    const { flaky, sent } = await droppingFirstStream("client-runs-delta-drop", (message) => message.startsWith("event: delta") && ++pieces === 2);
    const { id } = await flaky.startRun({ input: `${marker(script)} drop mid-turn` });
    const deltas: RunDelta[] = [];
    const events = await collect(flaky.followRun(id, { onDelta: (delta) => deltas.push(delta) }));

    expect(sent).toEqual([null, "1"]);
    expect(events.map((event) => event.type)).toEqual(["run.started", "model.turn", "run.finished"]);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((delta) => delta.content).join("")).toBe(answer);
    expect(deltas.at(-1)?.text).toBe(answer);
    expect(deltas.every((delta) => delta.content !== "")).toBe(true);
  });

  it("starts following after lastEventId when given one", async () => {
    const script = await scriptModel([{ content: "Short." }]);
    const { id } = await agent.startRun({ input: `${marker(script)} resume later` });
    const first = await collect(agent.followRun(id));
    const rest = await collect(agent.followRun(id, { lastEventId: first[0]?.id ?? "" }));
    expect(rest.map((event) => event.id)).toEqual(first.slice(1).map((event) => event.id));
  });

  it("cancels a run, and its events end with run.finished cancelled", async () => {
    const script = await scriptModel([{ content: "too slow", delay_ms: 1_000 }]);
    const { id } = await agent.startRun({ input: `${marker(script)} cancel me` });
    expect((await agent.cancelRun(id)).status).toBe("cancelled");
    const events = await collect(agent.followRun(id));
    expect(events.at(-1)).toMatchObject({ type: "run.finished", data: { status: "cancelled" } });
  });

  it("stops following when its signal is aborted", async () => {
    const script = await scriptModel([{ content: "later", delay_ms: 1_000 }]);
    const { id } = await agent.startRun({ input: `${marker(script)} abort me` });
    const controller = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const event of agent.followRun(id, { signal: controller.signal })) {
        seen.push(event.type);
        controller.abort(new Error("the user left"));
      }
    })();
    await expect(following).rejects.toThrow("the user left");
    expect(seen).toEqual(["run.started"]);
    await agent.cancelRun(id);
  });

  it("throws UNKNOWN_RUN for another key's run instead of retrying", async () => {
    const script = await scriptModel([{ content: "mine" }]);
    const { id } = await agent.startRun({ input: `${marker(script)} private` });
    const other = createClient({ baseUrl: BASE_URL, key: (await createKey({ name: "client-runs-other", role: "agent" })).key, fetch: send });
    const refused = await collect(other.followRun(id)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ToolgateRequestError);
    expect(refused).toMatchObject({ status: 404, errorCode: "UNKNOWN_RUN" });
    await expect(other.getRun(id)).rejects.toMatchObject({ status: 404 });
  });
});
