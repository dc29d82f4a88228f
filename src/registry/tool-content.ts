/**
 * Results made of typed content blocks (MCP's text, image, audio and embedded resources), for
 * tools whose output is not just text. The MCP door sends the blocks as they are; every other
 * door serialises the result to JSON text like any other value, so nothing else changes.
 */

/** An embedded resource's contents: text or base64 `blob`. */
export type ResourceContents = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

/** One block of MCP `CallToolResult.content`. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: ResourceContents }
  | { type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string };

/** A handler's result made of content blocks; build it with `toolContent`. */
export interface ContentResult {
  content: ContentBlock[];
}

// A symbol key: JSON never serialises it, so over /v1 the result is plain `{"content":[...]}`,
// and a tool that merely returns an object with a `content` field is never mistaken for one.
const CONTENT_RESULT = Symbol("toolgate.content-result");

/**
 * Marks a result as content blocks.
 *
 * @example
 * ```ts
 * handler: () => toolContent({ type: "text", text: "Chart:" }, { type: "image", data: png, mimeType: "image/png" }),
 * ```
 */
export function toolContent(...blocks: ContentBlock[]): ContentResult {
  return Object.defineProperty({ content: blocks }, CONTENT_RESULT, { value: true, enumerable: false });
}

/** True for values built by `toolContent`. */
export function isContentResult(value: unknown): value is ContentResult {
  return typeof value === "object" && value !== null && (value as { [CONTENT_RESULT]?: unknown })[CONTENT_RESULT] === true;
}
