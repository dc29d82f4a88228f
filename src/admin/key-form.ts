/**
 * The key forms' fields as the JSON bodies POST /v1/keys and PATCH /v1/keys/{id} take. Only the shape changes
 * here (comma lists become arrays, a number typed as text becomes a number); every check is the
 * API's, so a value the API refuses is passed on as typed for it to refuse with its own message.
 */
import type { KeyFormValues } from "./keys-page.tsx";

const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const rateOf = (text: string): unknown => (/^-?\d{1,16}$/.test(text) ? Number(text) : text);

/** The request body for the create form's values; fields left empty are left out (the API's defaults). */
export function createKeyBody(values: KeyFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = { name: values.name ?? "", role: values.role ?? "" };
  const toolsets = values.toolsets?.trim() ?? "";
  if (toolsets !== "") body.toolsets = list(toolsets);
  const patterns = list(values.patterns ?? "");
  const mode = values.policy_mode ?? "deny";
  if (patterns.length > 0 || mode !== "deny") body.policy = { mode, patterns };
  const rate = values.rate_limit?.trim() ?? "";
  if (rate !== "") body.rate_limit_per_minute = rateOf(rate);
  return body;
}

/**
 * The body for the change form, which always sends all three: an empty field means "every
 * toolset", "no pattern" and "the default limit", as it reads on the page.
 */
export function keyAccessBody(values: KeyFormValues): Record<string, unknown> {
  const toolsets = values.toolsets?.trim() ?? "";
  const rate = values.rate_limit?.trim() ?? "";
  return {
    toolsets: toolsets === "" ? null : list(toolsets),
    policy: { mode: values.policy_mode ?? "deny", patterns: list(values.patterns ?? "") },
    rate_limit_per_minute: rate === "" ? null : rateOf(rate),
  };
}
