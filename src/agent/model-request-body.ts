/**
 * The JSON body of one Chat Completions request, joined from pieces already serialised: each
 * transcript message as RunStore stored it, each tool definition as the definitions cache holds
 * it. A run sends its whole transcript and every definition on every turn, and handing the
 * `openai` package objects made it serialise all of them again each time (after the definitions
 * had been parsed from their cached text only for that); model-fetch.ts sends the text as it is.
 */

/** What one turn sends besides the model's name: the transcript and the offered tools, each piece JSON text. */
export interface ModelRequest {
  messages: readonly string[];
  tools: readonly string[];
}

/**
 * The request's body text. `stream` asks for SSE with a final usage chunk (`stream_options`);
 * without it the body says nothing of streaming, as a whole turn's request always did. No tools:
 * no `tools` field, since some servers refuse an empty list.
 */
export function modelRequestBody(model: string, request: ModelRequest, stream: boolean): string {
  const streaming = stream ? `,"stream":true,"stream_options":{"include_usage":true}` : "";
  const tools = request.tools.length === 0 ? "" : `,"tools":[${request.tools.join(",")}]`;
  return `{"model":${JSON.stringify(model)},"messages":[${request.messages.join(",")}]${streaming}${tools}}`;
}
