import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { TurnAssembler } from "../../src/agent/turn-assembler.ts";

type Delta = ChatCompletionChunk.Choice.Delta;
const chunk = (delta: Delta, finish: ChatCompletionChunk.Choice["finish_reason"] = null, usage?: ChatCompletionChunk["usage"]): ChatCompletionChunk => ({
  id: "c",
  object: "chat.completion.chunk",
  created: 0,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...(usage === undefined ? {} : { usage }),
});

describe("TurnAssembler", () => {
  it("keys interleaved tool call pieces by index, whatever order they arrive in", () => {
    const turn = new TurnAssembler();
    turn.add(chunk({ role: "assistant", content: "" }));
    turn.add(chunk({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "echo", arguments: '{"te' } }] }));
    turn.add(chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "current_time", arguments: "" } }] }));
    turn.add(
      chunk({
        tool_calls: [
          { index: 1, function: { arguments: 'xt":"b' } },
          { index: 0, function: { arguments: "{}" } },
        ],
      }),
    );
    turn.add(chunk({ tool_calls: [{ index: 1, function: { arguments: '"}' } }] }));
    turn.add(chunk({}, "tool_calls"));
    expect(turn.finishReason).toBe("tool_calls");
    expect(turn.usage).toBeUndefined();
    expect(turn.message()).toEqual({
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [
        { id: "a", type: "function", function: { name: "current_time", arguments: "{}" } },
        { id: "b", type: "function", function: { name: "echo", arguments: '{"text":"b"}' } },
      ],
    });
  });

  it("returns each piece of text to forward, and reads usage sent with the last choice", () => {
    const turn = new TurnAssembler();
    expect(turn.add(chunk({ content: "Hel" }))).toBe("Hel");
    expect(turn.add(chunk({ content: "lo" }))).toBe("lo");
    expect(turn.finishReason).toBeUndefined();
    expect(turn.add(chunk({}, "stop", { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 }))).toBe("");
    expect(turn.message()).toEqual({ role: "assistant", content: "Hello", refusal: null });
    expect(turn.usage).toEqual({ promptTokens: 2, completionTokens: 1, totalTokens: 3 });
  });
});
