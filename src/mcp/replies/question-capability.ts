/**
 * Which client capability a question needs (MCP 2025-11-25, "Elicitation" and "Sampling";
 * 2026-07-28 declares the same capabilities per request): a modern client is asked only what it
 * declared in that very request, so a question it cannot take ends the call with a sentence
 * instead of reaching a client that would reject it.
 */

/**
 * The requests a server may send its client (2025-11-25's client features: elicitation,
 * sampling, roots): the only questions toolgate passes on, whichever lane a server asks on.
 */
export const CLIENT_FEATURE_METHODS: ReadonlySet<string> = new Set(["elicitation/create", "sampling/createMessage", "roots/list"]);

/** How much of a method name a server chose a refusal repeats: the server's text reaches the client and the model. */
export const METHOD_ECHO_CHARS = 100;

/** The capability `method` with `params` needs that `declared` lacks, named for a person, or undefined when declared. */
export function missingCapability(method: string, params: Readonly<Record<string, unknown>>, declared: Readonly<Record<string, unknown>>): string | undefined {
  const has = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
  if (method === "sampling/createMessage") return has(declared.sampling) ? undefined : "sampling";
  if (method === "roots/list") return has(declared.roots) ? undefined : "roots";
  if (method !== "elicitation/create") return undefined;
  const elicitation = declared.elicitation;
  if (!has(elicitation)) return "elicitation";
  if (params.mode === "url") return has(elicitation.url) ? undefined : "URL-mode elicitation (elicitation.url)";
  // An empty elicitation capability is form mode alone, as before modes existed (2025-11-25).
  return has(elicitation.form) || Object.keys(elicitation).length === 0 ? undefined : "form-mode elicitation (elicitation.form)";
}
