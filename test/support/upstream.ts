import { isEverythingPort, startEverything, stopEverything } from "./everything-server.ts";
import { fakeMcpServer } from "./fake-mcp-server.ts";
import { EVERYTHING_CONTROL_HOST, FAKE_MCP_HOST } from "./test-env.ts";

/**
 * The "outside network" of the tests: Miniflare hands every outbound fetch of the Worker under
 * test to this function, which runs in Node, outside workerd. It plays a small upstream at
 * http://upstream.test whose behaviour the path selects, so tests exercise our real fetch path,
 * retries and breakers against real HTTP responses. Any other host answers 502, so a test can
 * never reach the real internet by accident.
 *
 *   /ok                         200 {"ok":true}
 *   /status/<code>?retry_after=  that status, with Retry-After when given
 *   /api.github.com/...          see githubStub
 *
 * MCP federation: 127.0.0.1 on the server-everything ports passes through to the real server
 * (everything-server.ts); http://everything.control.test/{stop,start}/<port> stops or restarts
 * it; http://mcp.upstream.test/... is the scripted server of fake-mcp-server.ts.
 */
export async function upstream(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname === "127.0.0.1" && isEverythingPort(Number(url.port))) return passThrough(request);
  if (url.hostname === EVERYTHING_CONTROL_HOST) return controlEverything(url);
  if (url.hostname === FAKE_MCP_HOST) return fakeMcpServer(request);
  if (url.hostname === "api.github.com") return githubStub(url);
  if (url.hostname !== "upstream.test") return new Response(`no route to ${url.hostname} from tests`, { status: 502 });
  if (url.pathname === "/ok") return Response.json({ ok: true, method: request.method });
  const status = /^\/status\/(\d{3})$/.exec(url.pathname)?.[1];
  if (status !== undefined) {
    const retryAfter = url.searchParams.get("retry_after");
    return new Response(`upstream says ${status}`, { status: Number(status), headers: retryAfter === null ? {} : { "retry-after": retryAfter } });
  }
  return new Response("not found", { status: 404 });
}

/** Just enough of GitHub's REST API for the github_repo tool. */
function githubStub(url: URL): Response {
  if (url.pathname === "/rate_limit") return Response.json({ resources: {} });
  if (url.pathname === "/repos/cloudflare/workers-sdk") {
    return Response.json({
      full_name: "cloudflare/workers-sdk",
      description: "Home to Wrangler",
      stargazers_count: 3000,
      forks_count: 700,
      open_issues_count: 500,
      default_branch: "main",
      license: { spdx_id: "MIT" },
      pushed_at: "2026-11-01T00:00:00Z",
      html_url: "https://github.com/cloudflare/workers-sdk",
    });
  }
  return Response.json({ message: "Not Found" }, { status: 404 });
}

/** Forwards a request to the real server on loopback; its answer (an event stream too) streams back. */
async function passThrough(request: Request): Promise<Response> {
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  // A stopped server makes this fetch reject, which the Worker's fetch sees as a network error.
  return fetch(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
}

async function controlEverything(url: URL): Promise<Response> {
  const [, action, port] = url.pathname.split("/");
  if (action === "stop") await stopEverything(Number(port));
  else if (action === "start") await startEverything(Number(port));
  else return new Response("unknown action", { status: 404 });
  return Response.json({ [String(action)]: Number(port) });
}
