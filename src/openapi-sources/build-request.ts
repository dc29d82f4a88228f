/**
 * The HTTP request one call of an OpenAPI operation sends: its URL (path parameters substituted
 * and encoded, query parameters written per style and explode), headers and body. Pure, so the
 * serialisation matrix is tested without a network.
 *
 * A path parameter can never change which path is called: every value is percent-encoded (`/`
 * becomes `%2F`), and the finished URL is parsed and compared with what was built, because the
 * WHATWG URL parser fetch uses resolves a segment that is `..` or `%2e%2e` however it is spelled.
 * A value that would do so is refused, not sent.
 */
import type { FieldIssue } from "../errors/tool-failure.ts";
import type { OpenApiOperation, OperationParameter } from "./operation.ts";
import { cookiePiece, headerValue, pathValue, queryPieces, SerializeError } from "./serialize-parameter.ts";

/** Headers that the spec says a parameter does not set (OpenAPI 3.1 §4.8.12.1) or that fetch owns. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization", "host", "content-length", "cookie", "connection", "transfer-encoding"]);

export interface BuiltRequest {
  url: string;
  /** Upper case, as fetch sends it. */
  method: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams | FormData;
}

export type BuildResult = { ok: true; request: BuiltRequest } | { ok: false; issues: FieldIssue[] };

/** A segment the WHATWG URL parser resolves (§4.4 "single-dot" and "double-dot" segments, `%2e` spellings included). */
function isDotSegment(segment: string): boolean {
  const dots = segment.replace(/%2e/gi, ".");
  return dots === "." || dots === "..";
}

function substitutedText(param: OperationParameter, args: Record<string, unknown>): string {
  const value = args[param.arg];
  return typeof value === "string" ? value : "";
}

function issue(path: string, message: string): BuildResult {
  return { ok: false, issues: [{ path, message }] };
}

/** The body as the operation's content type wants it, or the reason it cannot be. */
function encodeBody(operation: OpenApiOperation, value: unknown): { body: BuiltRequest["body"]; contentType?: string } {
  const type = operation.body?.contentType ?? "application/json";
  if (type === "application/json") return { body: JSON.stringify(value), contentType: type };
  if (type === "text/plain") {
    if (typeof value === "object" && value !== null) throw new SerializeError("the body is sent as text/plain, so it must be a string, not an object or array");
    return { body: String(value), contentType: "text/plain;charset=UTF-8" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SerializeError(`the body is sent as ${type}, so it must be an object of named fields`);
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
  if (type === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams();
    for (const [name, item] of entries) {
      // Form fields explode by default (OpenAPI 3.1 §4.8.15.1): an array is its name repeated.
      for (const one of Array.isArray(item) ? item : [item]) {
        if (typeof one === "object" && one !== null)
          throw new SerializeError(`body field '${name}' is a nested object, which a form-urlencoded body cannot carry`);
        form.append(name, one === null ? "" : String(one));
      }
    }
    // fetch sets the content type of URLSearchParams itself (charset included).
    return { body: form };
  }
  const form = new FormData();
  for (const [name, item] of entries) {
    for (const one of Array.isArray(item) && item.every((x) => typeof x !== "object" || x === null) ? item : [item]) {
      // An object part is JSON, the default content type of an object property in multipart (§4.8.15.2).
      if (typeof one === "object" && one !== null) form.append(name, new Blob([JSON.stringify(one)], { type: "application/json" }), `${name}.json`);
      else form.append(name, one === null ? "" : String(one));
    }
  }
  // fetch writes the multipart content type with its boundary.
  return { body: form };
}

/**
 * Builds the request for `operation` with the validated `args`, against `baseUrl`.
 *
 * @example
 * ```ts
 * const built = buildRequest(getPet, { petId: 7 }, "https://petstore.example/v3");
 * if (built.ok) await fetch(built.request.url, built.request);
 * ```
 */
export function buildRequest(operation: OpenApiOperation, args: Record<string, unknown>, baseUrl: string): BuildResult {
  let path = operation.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  let current: OperationParameter | undefined;
  try {
    const substituted = new Map<string, string>();
    for (const param of operation.parameters) {
      current = param;
      const value = args[param.arg];
      if (value === undefined) {
        if (param.in === "path") return issue(param.arg, "is a path parameter and must be given");
        continue;
      }
      if (param.in === "path") {
        const text = pathValue(param, value);
        if (text === "") return issue(param.arg, "is a path parameter and must not be empty (it would change which path is called)");
        substituted.set(param.name, text);
      } else if (param.in === "query") query.push(...queryPieces(param, value));
      else if (param.in === "header") {
        if (!IGNORED_HEADERS.has(param.name.toLowerCase())) headers[param.name] = headerValue(param, value);
      } else cookies.push(cookiePiece(param, value));
    }
    current = undefined;
    // One pass over the template: a substituted value is never scanned again for `{...}`.
    path = path.replace(/\{([^{}]+)\}/g, (whole, name: string) => substituted.get(name) ?? whole);
    if (cookies.length > 0) headers.cookie = cookies.join("; ");
    let body: BuiltRequest["body"];
    if (args.body !== undefined && operation.body !== undefined) {
      const encoded = encodeBody(operation, args.body);
      body = encoded.body;
      if (encoded.contentType !== undefined) headers["content-type"] = encoded.contentType;
    }
    const base = new URL(baseUrl);
    const expectedPath = `${base.pathname.replace(/\/+$/, "")}${path}`;
    // The base URL's own query (an API version, say) goes first, as it was written.
    const search = [...(base.search === "" ? [] : [base.search.slice(1)]), ...query].join("&");
    const target = new URL(`${base.origin}${expectedPath}${search === "" ? "" : `?${search}`}`);
    const step = expectedPath.split("/").find(isDotSegment);
    if (step !== undefined) {
      const culprit = operation.parameters.find((param) => param.in === "path" && isDotSegment(substitutedText(param, args)));
      return issue(
        culprit?.arg ?? "",
        `would change the path called: '${step}' is a path step (the URL parser resolves it), not a value; send the identifier itself`,
      );
    }
    return { ok: true, request: { url: target.href, method: operation.method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) } };
  } catch (error) {
    if (!(error instanceof SerializeError)) throw error;
    return issue(current?.arg ?? "body", error.message);
  }
}
