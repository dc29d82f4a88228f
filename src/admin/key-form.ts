/**
 * The create-key form's fields as the JSON body POST /v1/keys takes. Only the shape changes
 * here (comma lists become arrays, a number typed as text becomes a number); every check is the
 * API's, so a value the API refuses is passed on as typed for it to refuse with its own message.
 */
import type { KeyFormValues } from "./keys-page.tsx";

const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

/** The request body for the form's values; fields left empty are left out (the API's defaults). */
export function createKeyBody(values: KeyFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = { name: values.name ?? "", role: values.role ?? "" };
  const toolsets = values.toolsets?.trim() ?? "";
  if (toolsets !== "") body.toolsets = list(toolsets);
  const patterns = list(values.patterns ?? "");
  const mode = values.policy_mode ?? "deny";
  if (patterns.length > 0 || mode !== "deny") body.policy = { mode, patterns };
  const rate = values.rate_limit?.trim() ?? "";
  if (rate !== "") body.rate_limit_per_minute = /^-?\d{1,16}$/.test(rate) ? Number(rate) : rate;
  return body;
}
