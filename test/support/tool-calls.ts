/** Tool calls as the providers' models emit them, for the bodies of POST /v1/tool-calls. */

/**
 * An OpenAI `tool_calls` entry. A string `args` is the arguments text exactly as the model wrote
 * it (it may be malformed, or carry strings to coerce); anything else is JSON-encoded.
 */
export const openaiCall = (id: string, name: string, args: unknown) => ({
  id,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});

/** An Anthropic `tool_use` block. */
export const anthropicCall = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input });
