/**
 * The chunks a streamed chat completion is made of, from the run's events: each `delta` as it
 * comes, and what a final answer's deltas did not bring from its `model.turn`, never a piece twice.
 */
import { describe, expect, it } from "vitest";
import { chunkWriter } from "../../src/agent/chat-completion-wire.ts";
import type { RunEvent, RunEventType } from "../../src/agent/run-types.ts";

const event = (seq: number, type: RunEventType, data: Record<string, unknown>): RunEvent => ({ seq, at: 0, type, data });

/** The content each chunk of the SSE text carries. */
function contents(text: string): string[] {
  return text
    .split("\n\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] })
    .flatMap((chunk) =>
      typeof chunk.choices[0]?.delta?.content === "string" && chunk.choices[0].delta.content !== "" ? [chunk.choices[0].delta.content] : [],
    );
}

const base = { id: "chatcmpl-r", created: 0, model: "m" };

describe("chunkWriter", () => {
  it("sends each delta as a content chunk and nothing more at the turn's end", () => {
    const write = chunkWriter(base);
    const text = [
      event(1, "run.started", {}),
      event(1, "delta", { turn: 1, content: "Hel" }),
      event(1, "delta", { turn: 1, content: "lo" }),
      event(2, "model.turn", { turn: 1, content: "Hello", tool_calls: [] }),
    ]
      .map(write)
      .join("");
    expect(contents(text)).toEqual(["Hel", "lo"]);
  });

  it("sends a final answer whole from its model.turn to a reader that saw none of its deltas", () => {
    const late = chunkWriter(base);
    expect(contents(late(event(2, "model.turn", { turn: 1, content: "Hello, world", tool_calls: [] })))).toEqual(["Hello, world"]);
    // One that saw the start gets the rest only.
    const early = chunkWriter(base);
    expect(
      contents(
        [event(1, "delta", { turn: 1, content: "Hello, " }), event(2, "model.turn", { turn: 1, content: "Hello, world", tool_calls: [] })].map(early).join(""),
      ),
    ).toEqual(["Hello, ", "world"]);
  });

  it("sends a tool-calling turn's own text as it streamed, and only a step chunk at its end", () => {
    const write = chunkWriter(base);
    const text = [
      event(1, "delta", { turn: 1, content: "Checking." }),
      event(2, "model.turn", { turn: 1, content: "Checking.", tool_calls: [{ id: "c" }] }),
      event(3, "delta", { turn: 2, content: "Done" }),
      event(4, "model.turn", { turn: 2, content: "Done", tool_calls: [] }),
    ]
      .map(write)
      .join("");
    expect(contents(text)).toEqual(["Checking.", "Done"]);
  });
});
