import { readFileSync } from "node:fs";
import { upgrade } from "@scalar/openapi-upgrader";
import OpenAPIBackend, { type Context, type Document } from "openapi-backend";

/**
 * http://oas.upstream.test: the official Petstore examples (@readme/oas-examples: 2.0, 3.0 and
 * 3.1, written by the OpenAPI Initiative and Swagger, not by us), each served as a spec and as an
 * API that checks every request against that same spec with openapi-backend and answers from it:
 *
 *   GET /spec/<version>/<file>        the spec, as published
 *   /<version>/<file>/<path>          the API: a request the spec forbids answers 599 and is kept
 *   GET /__violations                 every kept violation, for tests to assert there are none
 *
 * openapi-backend reads OpenAPI 3 only, so a 2.0 spec is checked in its 3.x form, upgraded by
 * @scalar/openapi-upgrader (what toolgate does too; the upgrade is well-kept, not ours).
 */
export const OAS_HOST = "oas.upstream.test";

const EXAMPLES = new URL("../../node_modules/@readme/oas-examples/", import.meta.url);
const backends = new Map<string, Promise<OpenAPIBackend>>();
const violations: { request: string; violation: unknown }[] = [];

function specText(version: string, file: string): string {
  if (!/^(2\.0|3\.0|3\.1)$/.test(version) || !/^[\w.-]+\.json$/.test(file)) throw new Error(`no example ${version}/${file}`);
  return readFileSync(new URL(`${version}/json/${file}`, EXAMPLES), "utf8");
}

function backendFor(version: string, file: string): Promise<OpenAPIBackend> {
  const key = `${version}/${file}`;
  let backend = backends.get(key);
  if (backend === undefined) {
    backend = (async () => {
      const text = specText(version, file);
      // Two libraries' OpenAPI types for one document: JSON text is the common ground.
      const definition: Document = JSON.parse(version === "2.0" ? JSON.stringify(upgrade(JSON.parse(text), "3.0")) : text);
      // Paths are matched below the example's own prefix, not below its servers' path.
      const created = new OpenAPIBackend({ definition: { ...definition, servers: [{ url: "/" }] }, apiRoot: "/", quick: false });
      created.register({
        validationFail: (c: Context) => ({ status: 599, body: { violation: c.validation.errors } }),
        notFound: () => ({ status: 599, body: { violation: "no operation of the spec has this method and path" } }),
        notImplemented: (c: Context) => {
          const { status, mock } = c.api.mockResponseForOperation(c.operation.operationId ?? "");
          return { status, body: mock ?? null };
        },
      });
      await created.init();
      return created;
    })();
    backends.set(key, backend);
  }
  return backend;
}

export async function oasExamplesHost(request: Request, url: URL): Promise<Response> {
  if (url.pathname === "/__violations") return Response.json(violations);
  const spec = /^\/spec\/([\d.]+)\/([\w.-]+)$/.exec(url.pathname);
  if (spec !== null) return new Response(specText(spec[1] ?? "", spec[2] ?? ""), { headers: { "content-type": "application/json" } });
  const api = /^\/([\d.]+)\/([\w.-]+\.json)(\/.*)$/.exec(url.pathname);
  if (api === null) return new Response("not found", { status: 404 });
  const backend = await backendFor(api[1] ?? "", api[2] ?? "");
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
  const contentType = request.headers.get("content-type") ?? "";
  const handled = (await backend.handleRequest({
    method: request.method,
    path: api[3] ?? "/",
    query: url.search.slice(1),
    headers: Object.fromEntries(request.headers),
    body: body !== undefined && contentType.includes("json") ? JSON.parse(body) : body,
  })) as { status: number; body: unknown };
  if (handled.status === 599) violations.push({ request: `${request.method} ${url.pathname}${url.search}`, violation: handled.body });
  return Response.json(handled.body, { status: handled.status });
}
