/**
 * http_request: one HTTP request to a public URL, for APIs that have no tool of their own. It is
 * behind the SSRF guard like every outbound fetch; headers may name operator-granted secrets
 * (tools/lib/request-secrets.ts). Reading is free, writing is not: any method but GET waits for
 * a person's approval (`riskyWhen`), the gateway article's own example of `approval.required_for`;
 * listing http_request in APPROVAL_REQUIRED_FOR makes GETs wait too.
 *
 * Only GET follows redirects (each hop checked): a redirected POST would reach a URL nobody
 * approved, so a non-GET answer's 3xx comes back as it is, Location included. For the same
 * reason the gateway never retries it: a 503 after a POST may still have written.
 */
import { z } from "zod";
import { loadConfig } from "../src/config/config.ts";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { readTextCapped } from "../src/net/read-capped.ts";
import { SECRET_NAME_PATTERN } from "../src/net/secret-headers.ts";
import { isTextMedia } from "../src/net/text-media.ts";
import { registry } from "../src/registry/registry.ts";
import { limitResult } from "../src/results/limit-result.ts";
import { checkedFetch } from "./lib/checked-fetch.ts";
import { resolveRequestHeaders, scrubSecrets } from "./lib/request-secrets.ts";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const MAX_BODY_CHARS = 1_000_000;
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
const DEFAULT_MAX_CHARS = 20_000;
const MAX_CHARS = 100_000;
/** Headers fetch computes itself, or that would let a request pose as another host. */
const RESERVED = new Set([
  "host",
  "content-length",
  "connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
]);
const EXAMPLE = { method: "GET", url: "https://api.github.com/repos/cloudflare/workerd", headers: { accept: "application/vnd.github+json" } };

const headerValue = () =>
  z.union([
    z.string().max(8_192).describe("A literal header value."),
    z
      .strictObject({ secret: z.string().regex(SECRET_NAME_PATTERN, "must name an environment variable, such as WEATHER_API_KEY") })
      .describe('A secret by name, {"secret": "WEATHER_API_KEY"}: its value is sent, never shown.'),
  ]);

const schema = () =>
  z
    .object({
      method: z
        .enum(METHODS)
        .default("GET")
        .describe(`HTTP method, one of ${METHODS.join(", ")} (default GET). Every method but GET waits for a person's approval before it is sent.`),
      url: z
        .url({ protocol: /^https?$/, error: "must be an absolute http or https URL, such as https://api.example.com/v1/items" })
        .describe(
          "Absolute http(s) URL, query string included. Example: https://api.example.com/v1/items?limit=10. Private, loopback and link-local addresses are refused.",
        ),
      headers: z
        .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "must be a valid HTTP header name"), headerValue())
        .refine((headers) => Object.keys(headers).length <= 50, "at most 50 headers")
        .refine((headers) => Object.keys(headers).every((name) => !RESERVED.has(name.toLowerCase())), `may not set ${[...RESERVED].join(", ")}`)
        .default({})
        .describe(
          'Request headers, name to value; a value may name a secret the operator granted for this host: {"Authorization": {"secret": "WEATHER_API_KEY"}}.',
        ),
      body: z
        .union([z.string().max(MAX_BODY_CHARS), z.record(z.string(), z.unknown()), z.array(z.unknown())])
        .optional()
        .describe(
          `Request body, up to ${MAX_BODY_CHARS} characters: a string is sent as it is; an object or array is sent as JSON (content-type application/json unless headers set one). Not allowed with GET or HEAD.`,
        ),
      max_chars: z
        .number()
        .int()
        .min(500)
        .max(MAX_CHARS)
        .default(DEFAULT_MAX_CHARS)
        .describe(
          `Characters of the response body returned, 500-${MAX_CHARS} (default ${DEFAULT_MAX_CHARS}); beyond it a head and tail preview with a read_result handle.`,
        ),
    })
    .refine((args) => args.body === undefined || (args.method !== "GET" && args.method !== "HEAD"), {
      path: ["body"],
      message: "a GET or HEAD request has no body; use POST, PUT or PATCH to send one",
    });

registry.register({
  name: "http_request",
  toolset: "http",
  emoji: "🌐",
  schema,
  example: EXAMPLE,
  worstInputs: [
    {
      name: "GET of a 1 MiB URL with 50 headers of 8 KiB values",
      args: () => ({
        url: `https://example.com/${"p".repeat(1024 * 1024)}`,
        headers: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x-h${i}`, "v".repeat(8_192)])),
        max_chars: MAX_CHARS,
      }),
    },
    {
      name: "POST of a 1,000,000-character body, which waits for approval",
      args: () => ({ method: "POST", url: "https://example.com/", body: "b".repeat(MAX_BODY_CHARS) }),
    },
    {
      name: "PUT of an object body at the arguments' 20,000-value cap",
      args: () => ({ method: "PUT", url: "https://example.com/", body: Object.fromEntries(Array.from({ length: 19_990 }, (_, i) => [`k${i}`, `v${i}`])) }),
    },
    {
      // 200,000 keys once held the isolate 5 s (coercion, validation, canonical JSON); ten times the
      // value cap, in a 3 MiB body that a raised MAX_BODY_BYTES lets through to the parse stage.
      name: "PUT of an object body of 200,000 keys, ten times the arguments' value cap",
      args: () => ({ method: "PUT", url: "https://example.com/", body: Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i])) }),
    },
  ],
  description:
    "Sends one HTTP request to a public URL and returns status, status_text, final url, response headers and the body as text (JSON as it came; binary bodies reported by type and size). " +
    "Use web_extract to read web pages as Markdown and web_search to find them; use this for APIs. Methods other than GET wait for a person's approval. " +
    `Example: ${JSON.stringify(EXAMPLE)}`,
  riskyWhen: ({ method }) => method !== "GET",
  retry: { maxAttempts: 1 },
  timeoutMs: 30_000,
  handler: async ({ method, url, headers, body, max_chars }, ctx) => {
    const config = loadConfig(ctx.env);
    const resolved = resolveRequestHeaders(headers, new URL(url), config, ctx.env);
    if ("issues" in resolved) throw new ToolFailureError({ kind: "invalid_arguments", name: ctx.toolName, issues: resolved.issues });
    // A granted secret is the deployment's credential: the audit record says one was sent, never which value.
    if (resolved.secrets.length > 0) ctx.reportCredential("shared");
    const json = body !== undefined && typeof body !== "string";
    const headersFor = (target: URL) => {
      const out = resolved.headersFor(target);
      if (json && !out.has("content-type")) out.set("content-type", "application/json");
      return out;
    };
    const init: RequestInit = { method, ...(body === undefined ? {} : { body: json ? JSON.stringify(body) : body }) };
    const response = await checkedFetch(ctx, url, init, { field: "url", follow: method === "GET", headersFor });
    const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
    let text = "";
    let cut = false;
    if (method === "HEAD" || response.body === null) await response.body?.cancel();
    else if (!isTextMedia(contentType)) {
      await response.body.cancel();
      text = `[Binary body: ${contentType} (${response.headers.get("content-length") ?? "size unknown"} bytes), not returned.]`;
    } else ({ text, cut } = await readTextCapped(response, MAX_RESPONSE_BYTES));
    const limited = await limitResult(scrubSecrets(text, resolved.secrets), max_chars, {
      tool: ctx.toolName,
      callId: ctx.callId,
      sessionId: ctx.sessionId,
      env: ctx.env,
      ttlSeconds: config.resultTtlSeconds,
    });
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of response.headers) responseHeaders[name] = scrubSecrets(value, resolved.secrets);
    return {
      status: response.status,
      status_text: response.statusText,
      url: response.url === "" ? url : response.url,
      headers: responseHeaders,
      body: limited.content,
      total_chars: limited.totalChars,
      truncated: limited.truncated,
      ...(limited.handle === undefined ? {} : { handle: limited.handle }),
      ...(cut ? { body_cut: true } : {}),
    };
  },
});
