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
 *   POST /inbox/<name>           keeps the request's headers and body; GET /inbox/<name> lists them
 */
const inboxes = new Map<string, { headers: Record<string, string>; body: string }[]>();

export async function upstream(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname === "api.github.com") return githubStub(url);
  if (url.hostname !== "upstream.test") return new Response(`no route to ${url.hostname} from tests`, { status: 502 });
  if (url.pathname === "/ok") return Response.json({ ok: true, method: request.method });
  const inbox = /^\/inbox\/([\w-]+)$/.exec(url.pathname)?.[1];
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
