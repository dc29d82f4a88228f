/**
 * The pet shop of apis/specs/petstore.yaml, on http://petstore.test, for the OpenAPI source tests:
 * every request is checked against that same spec by openapi-backend (a validator toolgate does
 * not use) and answered from the spec's examples. A request the spec forbids is answered 599 and
 * kept as a violation; the tests assert there are none, so toolgate sending what the spec
 * refuses fails them.
 *
 * The first path segment names the test's scenario, so each test reads only its own requests:
 *
 *   /<scenario>/...                  the API (paths of the spec below it)
 *   GET /__log/<scenario>            the scenario's requests and violations, in order
 *   POST /<scenario>/oauth/token     a client credentials token endpoint (client `pet-client`, secret `pet-secret`)
 *
 * Scenarios whose name starts with one of these behave differently:
 *   rate-limited-    the first API request answers 429 with Retry-After: 1, the rest as usual
 *   redirect-private- GET /pets answers 302 to http://127.0.0.1/pets
 *   redirect-public- GET /pets answers 302 to /<scenario>/store/inventory, with the auth header kept in the log
 *   huge-            GET /store/inventory answers 8 MiB of JSON text
 *
 * GET /pets/<id> answers the spec's example with the id asked for; an id starting `missing`, its 404 example.
 */
import { readFileSync } from "node:fs";
import OpenAPIBackend, { type Context, type Document } from "openapi-backend";
import { parse } from "yaml";
import { type LoggedRequest, PETSTORE_CLIENT } from "./petstore-env.ts";

const SPEC_PATH = new URL("../../apis/specs/petstore.yaml", import.meta.url).pathname;
const definition = parse(readFileSync(SPEC_PATH, "utf8")) as Document;
const logs = new Map<string, LoggedRequest[]>();
let backend: Promise<OpenAPIBackend> | undefined;

function api(): Promise<OpenAPIBackend> {
  backend ??= (async () => {
    const created = new OpenAPIBackend({ definition });
    created.register({
      validationFail: (c: Context) => ({ status: 599, body: { violation: c.validation.errors } }),
      notFound: () => ({ status: 599, body: { violation: "no operation of the spec has this method and path" } }),
      notImplemented: (c: Context) => answer(c),
    });
    await created.init();
    return created;
  })();
  return backend;
}

/** The spec's example for the operation, or its 404 for a `missing` pet. */
function answer(c: Context): { status: number; body: unknown; type?: string } {
  const id = c.operation.operationId ?? "";
  const petId = String((c.request.params as Record<string, unknown>).petId ?? "");
  if (id === "showPetById" && petId.startsWith("missing")) return bodyOf(c, 404);
  // The pet asked for, so calls for different pets get different answers (the contract suite's ten concurrent calls).
  if (id === "showPetById") {
    const found = bodyOf(c);
    return { ...found, body: { ...(found.body as Record<string, unknown>), id: petId } };
  }
  if (id === "getPetPhoto") return { status: 200, body: new Uint8Array(2048).fill(137), type: "image/png" };
  if (id === "deletePet") return { status: 204, body: null };
  return bodyOf(c);
}

function bodyOf(c: Context, code?: number): { status: number; body: unknown; type?: string } {
  const { status, mock } = c.api.mockResponseForOperation(c.operation.operationId ?? "", code === undefined ? {} : { code });
  return { status, body: mock, ...(typeof mock === "string" ? { type: "text/plain" } : {}) };
}

/** Form and multipart fields as the schema types them: a form carries only text, the spec says which is a number or a list. */
function typedFields(entries: Iterable<[string, string]>, schema: Record<string, { type?: string }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    const type = schema[name]?.type;
    const typed = type === "integer" || type === "number" ? Number(value) : type === "object" ? (JSON.parse(value) as unknown) : value;
    if (type === "array") out[name] = [...((out[name] as unknown[] | undefined) ?? []), typed];
    else out[name] = typed;
  }
  return out;
}

function bodySchema(method: string, path: string, type: string): Record<string, { type?: string }> {
  const route = Object.entries(definition.paths ?? {}).find(([template]) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
  const operation = (route?.[1] as Record<string, { requestBody?: { content?: Record<string, { schema?: { properties?: object } }> } }> | undefined)?.[
    method.toLowerCase()
  ];
  return (operation?.requestBody?.content?.[type]?.schema?.properties ?? {}) as Record<string, { type?: string }>;
}

async function parsedBody(request: Request, path: string, raw: ArrayBuffer): Promise<unknown> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
  const text = new TextDecoder().decode(raw);
  if (type === "application/x-www-form-urlencoded") return typedFields(new URLSearchParams(text), bodySchema(request.method, path, type));
  if (type === "multipart/form-data") {
    const form = await new Request("http://x/", { method: "POST", headers: request.headers, body: raw }).formData();
    const fields: [string, string][] = [];
    for (const [name, value] of form) fields.push([name, typeof value === "string" ? value : await value.text()]);
    return typedFields(fields, bodySchema(request.method, path, type));
  }
  return text;
}

function respond(status: number, body: unknown, type?: string): Response {
  if (body === null || status === 204) return new Response(null, { status });
  if (body instanceof Uint8Array) return new Response(body, { status, headers: { "content-type": type ?? "application/octet-stream" } });
  if (type === "text/plain") return new Response(String(body), { status, headers: { "content-type": "text/plain; charset=utf-8" } });
  return Response.json(body, { status });
}

/** Query parameters that carry an API key (securitySchemes `in: query`): a server's auth layer consumes them, so the operation never sees them. */
const QUERY_KEYS = new Set(
  Object.values(definition.components?.securitySchemes ?? {}).flatMap((scheme) =>
    "type" in scheme && scheme.type === "apiKey" && scheme.in === "query" ? [encodeURIComponent(scheme.name)] : [],
  ),
);

function withoutQueryKeys(query: string): string {
  return query
    .split("&")
    .filter((piece) => piece !== "" && !QUERY_KEYS.has(piece.split("=")[0] ?? ""))
    .join("&");
}

/** The outbound stand-in's handler for http://petstore.test. */
export async function petstore(request: Request, url: URL): Promise<Response> {
  const [, scenario = "", ...rest] = url.pathname.split("/");
  if (scenario === "__log") return Response.json(logs.get(rest.join("/")) ?? []);
  const path = `/${rest.join("/")}`;
  const raw = await request.arrayBuffer();
  const entry: LoggedRequest = {
    method: request.method,
    target: `${path}${url.search}`,
    headers: Object.fromEntries(request.headers),
    body: new TextDecoder().decode(raw),
    at: Date.now(),
  };
  const log = logs.get(scenario) ?? [];
  logs.set(scenario, log);
  log.push(entry);
  if (path === "/oauth/token") return tokenEndpoint(request, entry, log);
  if (scenario.startsWith("rate-limited-") && log.length === 1) return new Response("slow down", { status: 429, headers: { "retry-after": "1" } });
  if (scenario.startsWith("redirect-private-") && path === "/pets") return new Response(null, { status: 302, headers: { location: "http://127.0.0.1/pets" } });
  if (scenario.startsWith("redirect-public-") && path === "/pets")
    return new Response(null, { status: 302, headers: { location: `/${scenario}/store/inventory` } });
  if (scenario.startsWith("huge-") && path === "/store/inventory")
    return new Response(`{"padding":"${"x".repeat(8 * 1024 * 1024)}"}`, { headers: { "content-type": "application/json" } });
  const result = (await (
    await api()
  ).handleRequest({
    method: request.method,
    path,
    query: withoutQueryKeys(url.search.slice(1)),
    headers: Object.fromEntries(request.headers),
    body: await parsedBody(request, path, raw),
  })) as { status: number; body: unknown; type?: string };
  if (result.status === 599) entry.violation = (result.body as { violation: unknown }).violation;
  return respond(result.status, result.body, result.type);
}

function tokenEndpoint(request: Request, entry: LoggedRequest, log: LoggedRequest[]): Response {
  const expected = `Basic ${Buffer.from(`${PETSTORE_CLIENT.id}:${PETSTORE_CLIENT.secret}`).toString("base64")}`;
  if (request.headers.get("authorization") !== expected || !entry.body.includes("grant_type=client_credentials"))
    return Response.json({ error: "invalid_client", error_description: "unknown client or wrong secret" }, { status: 401 });
  const issued = log.filter((seen) => seen.target === "/oauth/token").length;
  return Response.json({ access_token: `pet-token-${issued}`, token_type: "Bearer", expires_in: 3600 });
}
