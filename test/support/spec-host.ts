import { readFile } from "node:fs/promises";

/**
 * http://specs.upstream.test: where runtime OpenAPI sources fetch their specs in tests (Node side).
 * `PUT /<name>` stores a body (a test publishing a spec, or a changed one); `GET /<name>` serves it.
 * `GET /github.json` serves GitHub's real REST description from @octokit/openapi (13 MB, ~1,000
 * operations), read from disk, so no test has to carry it through workerd.
 */
export { SPEC_FILES_HOST as SPEC_HOST } from "./test-env.ts";

const published = new Map<string, { body: string; type: string }>();
const GITHUB_SPEC = new URL("../../node_modules/@octokit/openapi/generated/api.github.com.json", import.meta.url);

export async function specHost(request: Request, url: URL): Promise<Response> {
  const name = url.pathname.slice(1);
  if (request.method === "PUT") {
    published.set(name, { body: await request.text(), type: request.headers.get("content-type") ?? "application/json" });
    return new Response(null, { status: 204 });
  }
  if (name === "github.json") return new Response(await readFile(GITHUB_SPEC, "utf8"), { headers: { "content-type": "application/json" } });
  const spec = published.get(name);
  return spec === undefined ? new Response("no such spec", { status: 404 }) : new Response(spec.body, { headers: { "content-type": spec.type } });
}
