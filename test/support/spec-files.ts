/**
 * Real OpenAPI specs, served to the Worker under test as a spec URL on the outside network
 * would be (upstream.ts routes SPEC_FILES_HOST here). They are read from disk on the Node side,
 * so a 13 MB spec never passes through the test bundler. Only the names listed are served.
 */
import { readFile } from "node:fs/promises";

const OCTOKIT = new URL("../../node_modules/@octokit/openapi/generated/", import.meta.url);

/** Served path → file. GitHub's REST description: 13 MB, ~1,200 operations, OpenAPI 3.0.3. */
const FILES: Record<string, URL> = {
  "/github.json": new URL("api.github.com.json", OCTOKIT),
};

export async function specFile(url: URL): Promise<Response> {
  const file = FILES[url.pathname];
  if (file === undefined) return new Response(`no spec at ${url.pathname}`, { status: 404 });
  return new Response(await readFile(file), { headers: { "content-type": "application/json" } });
}
