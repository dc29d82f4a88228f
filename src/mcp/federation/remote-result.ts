/**
 * How a remote tool's answer reaches the model. Text blocks are joined with newlines (as the
 * reference client does); a result with anything else (structured content, images, resources)
 * is JSON with the text as `result` and the rest kept, binary data summarised rather than
 * pasted, since base64 in a tool message costs the model tokens and tells it nothing.
 */
import type { RemoteCallResult } from "../client/mcp-client.ts";

/** The text of a result's text blocks, joined with newlines. */
export function resultText(result: RemoteCallResult): string {
  return result.content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

/** The value a remote tool's handler returns: a string for text-only results, JSON data otherwise. */
export function renderResult(result: RemoteCallResult): unknown {
  const text = resultText(result);
  const others = result.content.filter((block) => block.type !== "text");
  if (others.length === 0 && result.structuredContent === undefined) return text;
  return {
    result: text,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(others.length === 0 ? {} : { content: others.map(summariseBlock) }),
  };
}

function summariseBlock(block: Record<string, unknown>): Record<string, unknown> {
  if (typeof block.data !== "string") return block;
  const { data, ...rest } = block;
  // base64: 4 characters for every 3 bytes.
  return { ...rest, data: `[${Math.floor((data.length * 3) / 4)} bytes of base64 data omitted]` };
}
