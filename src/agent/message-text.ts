/** A chat message's text, whatever shape its content has (a string, or OpenAI's array of parts). */

/** The text of a message's `content`: a string as it is, an array's text parts joined, anything else empty. */
export const messageText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : "")).join("")
      : "";
