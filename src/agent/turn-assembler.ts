/**
 * A streamed model turn put back together: the `chat.completion.chunk`s the `openai` package
 * reads off the wire become the one assistant message the run stores. Content arrives as text
 * pieces; a tool call arrives in pieces under its `index` (its id and name in the first, its
 * `arguments` split anywhere, even inside a JSON string), so calls are keyed by index, never by
 * arrival order, and several calls may interleave.
 */
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";

/** Token counts of one turn, when the upstream reports them. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** Collects one turn's chunks; `add` returns the chunk's new content, to forward as it arrives. */
export class TurnAssembler {
  #content = "";
  #refusal = "";
  readonly #calls = new Map<number, PartialCall>();
  #finishReason: string | undefined;
  #usage: TurnUsage | undefined;

  add(chunk: ChatCompletionChunk): string {
    // The usage chunk (stream_options.include_usage) has no choices; a server may also put usage on the last choice's chunk.
    if (chunk.usage !== undefined && chunk.usage !== null) {
      this.#usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0,
        totalTokens: chunk.usage.total_tokens ?? 0,
      };
    }
    const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
    if (choice === undefined) return "";
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) this.#finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    for (const piece of delta.tool_calls ?? []) {
      const call = this.#calls.get(piece.index) ?? { id: "", name: "", arguments: "" };
      if (piece.id !== undefined && piece.id !== "") call.id = piece.id;
      // Names come whole in practice; appending also copes with a server that splits them.
      if (piece.function?.name !== undefined) call.name += piece.function.name;
      if (piece.function?.arguments !== undefined) call.arguments += piece.function.arguments;
      this.#calls.set(piece.index, call);
    }
    if (typeof delta.refusal === "string") this.#refusal += delta.refusal;
    const text = typeof delta.content === "string" ? delta.content : "";
    this.#content += text;
    return text;
  }

  /** The finish reason, once a chunk carried one: a stream that ends without it was cut short. */
  get finishReason(): string | undefined {
    return this.#finishReason;
  }

  /** Usage, when the server reported it (many local servers do not). */
  get usage(): TurnUsage | undefined {
    return this.#usage;
  }

  /** The assistant message the chunks make, as a non-streamed answer would carry it. */
  message(): ChatCompletion.Choice["message"] {
    const calls = [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(
        ([index, call]): ChatCompletionMessageFunctionToolCall => ({
          id: call.id === "" ? `call_${index}` : call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        }),
      );
    return {
      role: "assistant",
      content: this.#content === "" && calls.length > 0 ? null : this.#content,
      refusal: this.#refusal === "" ? null : this.#refusal,
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
    };
  }
}
