/**
 * Header values that name a secret instead of holding it (`{"secret": "GITHUB_MCP_TOKEN"}`), as
 * remote MCP servers' headers and http_request's headers do: the reference is what is stored,
 * logged and audited; the value is read from `env` only when the request is sent.
 */

/** What a secret reference may name: an env var (a Worker secret). */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export interface SecretRef {
  secret: string;
}

/** The value of the secret `name` in `env`, or undefined when it is unset or blank (no credential is only whitespace). */
export function secretValue(env: Env, name: string): string | undefined {
  const value: unknown = Reflect.get(env, name);
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** Header name → value for every reference whose secret is set; an unset one sends no header. */
export function resolveSecretHeaders(refs: Readonly<Record<string, SecretRef>>, env: Env): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, ref] of Object.entries(refs)) {
    const value = secretValue(env, ref.secret);
    if (value !== undefined) headers[header] = value;
  }
  return headers;
}
