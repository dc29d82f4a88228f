/**
 * Reading a JSON answer's body without trusting its size: a server could send more than an
 * isolate's memory holds, so the read stops at the same bound as an event stream's message.
 */
import { McpClientError } from "./json-rpc.ts";
import { MAX_MESSAGE_CHARS } from "./sse-events.ts";

/** The body as text, refusing one over MAX_MESSAGE_CHARS before it is all in memory. */
export async function boundedText(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += value;
    if (text.length > MAX_MESSAGE_CHARS) {
      await reader.cancel();
      throw new McpClientError("protocol", `the answer is larger than ${MAX_MESSAGE_CHARS} characters`);
    }
  }
}
