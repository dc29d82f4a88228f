/**
 * Secrets in http_request's headers. The model names a secret (`{"secret": "WEATHER_API_KEY"}`)
 * and never sees its value; the operator decides which secrets may be named and to which hosts
 * they may go (HTTP_REQUEST_SECRETS). Without that binding any prompt-injected page could ask
 * for `{"secret": "ADMIN_TOKEN"}` to be sent to a host it controls. A redirect to a host the
 * secret is not granted for drops the header, as browsers drop Authorization across origins.
 */
import type { GatewayConfig } from "../../src/config/config.ts";
import type { HttpRequestSecretGrant } from "../../src/config/config-schema.ts";
import type { FieldIssue } from "../../src/errors/tool-failure.ts";
import { type SecretRef, secretValue } from "../../src/net/secret-headers.ts";

export type HeaderValue = string | SecretRef;

export interface ResolvedHeaders {
  /** The headers to send to `url`: plain ones always, each secret only where it is granted. */
  headersFor(url: URL): Headers;
  /** Name and value of every secret in use, to scrub from what comes back. */
  secrets: readonly { name: string; value: string }[];
}

function hostMatches(grant: HttpRequestSecretGrant, url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return grant.matches(host) || grant.matches(`${host}:${url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port}`);
}

/** The request's headers with secrets resolved, or the issues (one per refused header) that stop it. */
export function resolveRequestHeaders(
  headers: Readonly<Record<string, HeaderValue>>,
  url: URL,
  config: GatewayConfig,
  env: Env,
): ResolvedHeaders | { issues: FieldIssue[] } {
  const plain: [string, string][] = [];
  const secret: { header: string; name: string; value: string; grants: HttpRequestSecretGrant[] }[] = [];
  const issues: FieldIssue[] = [];
  for (const [header, value] of Object.entries(headers)) {
    if (typeof value === "string") {
      plain.push([header, value]);
      continue;
    }
    const path = `headers.${header}`;
    const grants = config.httpRequestSecrets.filter((grant) => grant.secret === value.secret);
    if (grants.length === 0) {
      issues.push({
        path,
        message: `the secret ${value.secret} may not be sent by http_request; an operator allows it for a host with HTTP_REQUEST_SECRETS=${value.secret}@<host>`,
      });
    } else if (!grants.some((grant) => hostMatches(grant, url))) {
      issues.push({ path, message: `the secret ${value.secret} may be sent only to ${grants.map((grant) => grant.host).join(", ")}, not to ${url.hostname}` });
    } else {
      const resolved = secretValue(env, value.secret);
      if (resolved === undefined) issues.push({ path, message: `the secret ${value.secret} is not set on this gateway (wrangler secret put ${value.secret})` });
      else secret.push({ header, name: value.secret, value: resolved, grants });
    }
  }
  if (issues.length > 0) return { issues };
  return {
    headersFor(target) {
      const out = new Headers(plain);
      for (const entry of secret) if (entry.grants.some((grant) => hostMatches(grant, target))) out.set(entry.header, entry.value);
      return out;
    },
    secrets: secret.map(({ name, value }) => ({ name, value })),
  };
}

/** `text` with every secret value replaced by `[secret NAME]`: an echoing server must not hand a value to the model. */
export function scrubSecrets(text: string, secrets: ResolvedHeaders["secrets"]): string {
  let out = text;
  for (const { name, value } of secrets) out = out.split(value).join(`[secret ${name}]`);
  return out;
}
