import { createHmac, timingSafeEqual } from "node:crypto";
import { isEverythingPort, startEverything, stopEverything } from "./everything-server.ts";
import { fakeMcpServer } from "./fake-mcp-server.ts";
import { forwardToModelServer } from "./model-server.ts";
import { OAS_HOST, oasExamplesHost } from "./oas-examples-host.ts";
import { isOAuthMcpPort, startOAuthMcp } from "./oauth-mcp-server.ts";
import { OTLP_HOST, otlpReceiver } from "./otlp-receiver.ts";
import { BUILD_TIME_PETSTORE_HOST, PETSTORE_HOST } from "./petstore-env.ts";
import { petstore } from "./petstore-stub.ts";
import { SPEC_HOST, specHost } from "./spec-host.ts";
import { EVERYTHING_CONTROL_HOST, FAKE_MCP_HOST, MODEL_HOST, OAUTH_MCP_CONTROL_HOST, TEST_WEBHOOK_SECRET } from "./test-env.ts";
import { V2_MCP_HOST, v2McpServer } from "./v2-mcp-server.ts";
import { braveSearch, EXAMPLE_HOST, examplePage, MIRROR_HOST, SEARX_HOST, searxSearch, tavilySearch, WEB_HOST, webPages } from "./web-stub.ts";

/**
 * The "outside network" of the tests: Miniflare hands every outbound fetch of the Worker under
 * test to this function, which runs in Node, outside workerd. It plays a small upstream at
 * http://upstream.test whose behaviour the path selects, so tests exercise our real fetch path,
 * retries and breakers against real HTTP responses. Any other host answers 502, so a test can
 * never reach the real internet by accident.
 *
 *   /ok                         200 {"ok":true}
 *   /status/<code>?retry_after=  that status, with Retry-After when given
 *   /api.github.com/...          see githubStub; POST .../issues/<n>/comments is kept in inbox
 *                                `github-comments` (GET /inbox/github-comments lists them)
 *   /hook-callback/ok            200 when the webhook callback's signature checks out with
 *                                TEST_WEBHOOK_SECRET, else 401
 *   /hook-callback/flaky         503 the first time a delivery (X-Toolgate-Delivery) calls
 *                                back, then as /hook-callback/ok
 *   POST /inbox/<name>           keeps the request's headers and body; GET /inbox/<name> lists them
 *   POST /flaky-inbox/<name>     503 the first time, then as /inbox/<name> (GET /inbox/<name> lists)
 *
 * MCP federation: 127.0.0.1 on the server-everything ports passes through to the real server
 * (everything-server.ts); http://everything.control.test/{stop,start}/<port> stops or restarts
 * it; http://mcp.upstream.test/... is the scripted server of fake-mcp-server.ts;
 * http://v2-mcp.upstream.test/mcp is the official v2 SDK server (v2-mcp-server.ts);
 * http://oauth-mcp.control.test/start starts an MCP server that requires OAuth on an ephemeral
 * loopback port (oauth-mcp-server.ts), whose requests then pass through like server-everything's.
 *
 * OpenAPI sources: http://specs.upstream.test/<name>.json serves a real spec from disk (spec-files.ts).
 *
 * Agent runs: http://model.test/... is forwarded to the scripted model of model-server.ts.
 *
 * The web tools: pages on http://web.upstream.test (and the same on http://mirror.upstream.test,
 * a second host for redirects), api.search.brave.com, api.tavily.com and a
 * SearXNG on http://searx.upstream.test, and https://example.com for web_extract's example
 * (web-stub.ts).
 *
 * OpenAPI sources: specs published by tests, and GitHub's, on http://specs.upstream.test (spec-host.ts);
 * the official Petstore examples as specs and as validating APIs on http://oas.upstream.test
 * (oas-examples-host.ts).
 * Tracing: http://otlp.test is an OpenTelemetry collector that decodes OTLP/HTTP JSON exports
 * and keeps their spans (otlp-receiver.ts).
 * OpenAPI sources: http://petstore.test is the pet shop of apis/specs/petstore.yaml, which checks
 * every request against the spec and answers from its examples (petstore-stub.ts).
 */
const inboxes = new Map<string, { headers: Record<string, string>; body: string }[]>();
const flakyInboxesSeen = new Set<string>();

export async function upstream(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname === "127.0.0.1" && isEverythingPort(Number(url.port))) return passThrough(request);
  if (url.hostname === EVERYTHING_CONTROL_HOST) return controlEverything(url);
  if (url.hostname === "127.0.0.1" && isOAuthMcpPort(Number(url.port))) return passThrough(request);
  if (url.hostname === OAUTH_MCP_CONTROL_HOST) return Response.json({ port: await startOAuthMcp() });
  if (url.hostname === FAKE_MCP_HOST) return fakeMcpServer(request);
  if (url.hostname === V2_MCP_HOST) return v2McpServer(request);
  if (url.hostname === MODEL_HOST) return forwardToModelServer(request);
  if (url.hostname === "api.github.com") return request.method === "POST" ? githubPostStub(request, url) : githubStub(url);
  if (url.hostname === WEB_HOST || url.hostname === MIRROR_HOST) return webPages(request, url);
  if (url.hostname === "api.search.brave.com") return braveSearch(request, url);
  if (url.hostname === "api.tavily.com") return tavilySearch(request, url);
  if (url.hostname === SEARX_HOST) return searxSearch(url);
  if (url.hostname === EXAMPLE_HOST) return examplePage(url);
  if (url.hostname === SPEC_HOST) return specHost(request, url);
  if (url.hostname === OAS_HOST) return oasExamplesHost(request, url);
  // The build-time example source (apis/petstore.ts) calls https://petstore.example/v1: the same
  // stand-in, with `v1` as its scenario, so the contract suite can call its tools.
  if (url.hostname === PETSTORE_HOST || url.hostname === BUILD_TIME_PETSTORE_HOST) return petstore(request, url);
  if (url.hostname === OTLP_HOST) return otlpReceiver(request, url);
  if (url.hostname !== "upstream.test") return new Response(`no route to ${url.hostname} from tests`, { status: 502 });
  if (url.pathname === "/ok") return Response.json({ ok: true, method: request.method });
  if (url.pathname.startsWith("/hook-callback/")) return webhookCallback(request, url.pathname.slice("/hook-callback/".length));
  const flaky = /^\/flaky-inbox\/([\w-]+)$/.exec(url.pathname)?.[1];
  if (flaky !== undefined && request.method === "POST" && !flakyInboxesSeen.has(flaky)) {
    flakyInboxesSeen.add(flaky);
    return new Response("try again", { status: 503 });
  }
  const inbox = /^\/(?:flaky-)?inbox\/([\w-]+)$/.exec(url.pathname)?.[1];
  if (inbox !== undefined) {
    const kept = inboxes.get(inbox) ?? [];
    inboxes.set(inbox, kept);
    if (request.method === "GET") return Response.json(kept);
    kept.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
    return new Response(null, { status: 204 });
  }
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

/** GitHub's comment endpoint: the request is kept for the test to read, and answered as GitHub does. */
async function githubPostStub(request: Request, url: URL): Promise<Response> {
  const issue = /^\/repos\/([\w.-]+)\/([\w.-]+)\/issues\/(\d+)\/comments$/.exec(url.pathname);
  if (issue === null) return Response.json({ message: "Not Found" }, { status: 404 });
  const kept = inboxes.get("github-comments") ?? [];
  inboxes.set("github-comments", kept);
  kept.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
  const id = kept.length;
  return Response.json({ id, html_url: `https://github.com/${issue[1]}/${issue[2]}/issues/${issue[3]}#issuecomment-${id}` }, { status: 201 });
}

const callbacksSeen = new Set<string>();

/** A webhook callback receiver that checks toolgate's signature the way a real one would. */
async function webhookCallback(request: Request, mode: string): Promise<Response> {
  const delivery = request.headers.get("x-toolgate-delivery") ?? "";
  if (mode === "flaky" && !callbacksSeen.has(delivery)) {
    callbacksSeen.add(delivery);
    return new Response("try again", { status: 503 });
  }
  const body = Buffer.from(await request.arrayBuffer());
  const timestamp = request.headers.get("x-toolgate-timestamp") ?? "";
  const expected = `sha256=${createHmac("sha256", TEST_WEBHOOK_SECRET).update(`${timestamp}.`).update(body).digest("hex")}`;
  const sent = Buffer.from(request.headers.get("x-toolgate-signature-256") ?? "");
  const valid = sent.length === expected.length && timingSafeEqual(sent, Buffer.from(expected));
  return valid ? Response.json({ received: true }) : new Response("bad signature", { status: 401 });
}

/** Forwards a request to the real server on loopback; its answer (an event stream too) streams back. */
async function passThrough(request: Request): Promise<Response> {
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  // A stopped server makes this fetch reject, which the Worker's fetch sees as a network error.
  // Redirects go back to the caller (an OAuth authorize step redirects to toolgate's callback).
  return fetch(request.url, { method: request.method, headers: request.headers, body, signal: request.signal, redirect: "manual" });
}

async function controlEverything(url: URL): Promise<Response> {
  const [, action, port] = url.pathname.split("/");
  if (action === "stop") await stopEverything(Number(port));
  else if (action === "start") await startEverything(Number(port));
  else return new Response("unknown action", { status: 404 });
  return Response.json({ [String(action)]: Number(port) });
}
