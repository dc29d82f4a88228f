/**
 * The web as web_extract, web_search and http_request see it in tests (routed here by
 * upstream.ts): pages on http://web.upstream.test, the search providers' APIs on their real
 * hosts with keys checked, and a self-hosted SearXNG on http://searx.upstream.test.
 *
 *   /article.html              an article with page chrome around it (nav, script, style, footer)
 *   /data.json, /notes.txt     JSON and plain text
 *   /image.png                 a few bytes declared image/png, without PNG's signature
 *   /pixel.png                 a real 1x1 PNG
 *   /huge.gif                  6 MiB behind a GIF signature, streamed without a length
 *   /big.html?kb=<n>           about n KiB of HTML (sections of paragraphs, links and a table)
 *   /redirect?to=<url>         302 to `to`; /see-other?to=<url> 303 to it
 *   /echo                      any method: the request's method, headers and body as JSON, and
 *                              every request header echoed back as `x-echo-<name>`
 *
 * https://example.com/<any path> answers a small page naming the path, for web_extract's example.
 */

export const WEB_HOST = "web.upstream.test";
/** Serves the same routes as WEB_HOST: another host to redirect to. */
export const MIRROR_HOST = "mirror.upstream.test";
export const SEARX_HOST = "searx.upstream.test";
/** The host of web_extract's example call (the contract suite runs it): a small page at any path. */
export const EXAMPLE_HOST = "example.com";
export const TEST_BRAVE_KEY = "brave-test-key";
export const TEST_TAVILY_KEY = "tvly-test-key";

/** A 1x1 PNG, as a vision model would be sent it. */
export const PIXEL_PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);

export const ARTICLE_HTML = `<!doctype html>
<html><head><title>Edge &amp; Tools</title><style>body { color: red }</style>
<script>var tracking = "should not appear";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About us</a></nav>
<header role="banner"><a href="/">Site logo</a></header>
<main>
<h1>Tools at the edge</h1>
<p>Workers run <strong>close</strong> to users &mdash; see <a href="/docs/intro?x=1">the intro</a> and <em>more</em>.</p>
<h2>Numbers</h2>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1 | 2</td></tr><tr><td>beta</td><td>3</td></tr></table>
<ul><li>first item</li><li>second <code>code</code></li></ul>
<ol><li>one</li><li>two</li></ol>
<pre><code>const x = 1;
if (x &lt; 2) run();</code></pre>
<blockquote><p>Quoted words.</p></blockquote>
<p hidden>Hidden text.</p>
<img src="/cat.png" alt="A cat">
</main>
<footer>Copyright footer text</footer>
<script>document.write("nope")</script>
</body></html>`;

function bigPage(kb: number): string {
  const parts = ["<!doctype html><html><head><title>Big page</title><script>var a = 1;</script></head><body><nav><a href='/'>Home</a></nav><main>"];
  let size = parts[0]?.length ?? 0;
  for (let section = 0; size < kb * 1024; section++) {
    const block =
      `<section><h2>Section ${section}</h2><p>Paragraph ${section} with <a href="/s/${section}">a link</a>, <strong>bold</strong> and <em>emphasis</em> &amp; an entity. ` +
      `${"Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(6)}</p>` +
      `<ul><li>item a${section}</li><li>item b${section}</li></ul>` +
      `<table><tr><th>k</th><th>v</th></tr><tr><td>${section}</td><td>${section * 2}</td></tr></table></section>`;
    parts.push(block);
    size += block.length;
  }
  parts.push("</main><footer>end</footer></body></html>");
  return parts.join("");
}

async function echo(request: Request): Promise<Response> {
  const headers = Object.fromEntries(request.headers);
  const echoed = new Headers({ "content-type": "application/json" });
  for (const [name, value] of Object.entries(headers)) echoed.set(`x-echo-${name}`, value);
  return new Response(JSON.stringify({ method: request.method, headers, body: await request.text() }), { headers: echoed });
}

/** The page https://example.com serves at every path. */
export function examplePage(url: URL): Response {
  const html = `<!doctype html><html><head><title>Example Domain</title></head><body><h1>Example Domain</h1><p>Path ${url.pathname.replace(/[<&]/g, "")}</p></body></html>`;
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
}

/** Pages, redirects and the echo route of http://web.upstream.test. */
export async function webPages(request: Request, url: URL): Promise<Response> {
  const html = { "content-type": "text/html; charset=utf-8" };
  switch (url.pathname) {
    case "/article.html":
      return new Response(ARTICLE_HTML, { headers: html });
    case "/data.json":
      return Response.json({ items: [1, 2, 3], name: "data" });
    case "/notes.txt":
      return new Response("line one\n  line two keeps its indent\n", { headers: { "content-type": "text/plain; charset=utf-8" } });
    case "/image.png":
      return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), { headers: { "content-type": "image/png", "content-length": "8" } });
    case "/pixel.png":
      return new Response(PIXEL_PNG, { headers: { "content-type": "image/png" } });
    case "/huge.gif": {
      const rest = new Uint8Array(64 * 1024).fill(0x78);
      const first = Uint8Array.from(rest);
      first.set([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 6 * 1024 * 1024) return controller.close();
          controller.enqueue(sent === 0 ? first : rest);
          sent += rest.length;
        },
      });
      return new Response(body, { headers: { "content-type": "image/gif" } });
    }
    case "/big.html":
      return new Response(bigPage(Number(url.searchParams.get("kb") ?? "1")), { headers: html });
    case "/redirect":
    case "/see-other":
      return new Response(null, { status: url.pathname === "/redirect" ? 302 : 303, headers: { location: url.searchParams.get("to") ?? "/article.html" } });
    case "/echo":
      return echo(request);
  }
  return new Response("not found", { status: 404 });
}

function results(query: string): { title: string; url: string; snippet: string }[] {
  return [1, 2, 3].map((n) => ({
    title: `${query} result ${n}`,
    url: `https://example.com/${encodeURIComponent(query)}/${n}`,
    snippet: `Snippet ${n} about ${query}.`,
  }));
}

/** Brave Search's web search endpoint, answering only the test key. */
export function braveSearch(request: Request, url: URL): Response {
  if (url.pathname !== "/res/v1/web/search") return new Response("not found", { status: 404 });
  if (request.headers.get("x-subscription-token") !== TEST_BRAVE_KEY) return Response.json({ error: "bad token" }, { status: 401 });
  const query = url.searchParams.get("q") ?? "";
  const count = Number(url.searchParams.get("count") ?? "20");
  return Response.json({
    type: "search",
    web: {
      results: results(query)
        .slice(0, count)
        .map((r) => ({ title: r.title, url: r.url, description: r.snippet })),
    },
  });
}

/** Tavily's search endpoint (POST, bearer key). */
export async function tavilySearch(request: Request, url: URL): Promise<Response> {
  if (url.pathname !== "/search" || request.method !== "POST") return new Response("not found", { status: 404 });
  if (request.headers.get("authorization") !== `Bearer ${TEST_TAVILY_KEY}`) return Response.json({ detail: { error: "Unauthorized" } }, { status: 401 });
  const body = (await request.json()) as { query: string; max_results?: number };
  return Response.json({
    query: body.query,
    results: results(body.query)
      .slice(0, body.max_results ?? 5)
      .map((r, i) => ({ title: r.title, url: r.url, content: r.snippet, score: 0.9 - i / 10 })),
  });
}

/** A self-hosted SearXNG's JSON API. */
export function searxSearch(url: URL): Response {
  // A SearXNG behind a sign-in proxy: 200 with the proxy's HTML page instead of JSON.
  if (url.pathname === "/behind-sign-in/search") return new Response("<html><body>Please sign in</body></html>", { headers: { "content-type": "text/html" } });
  if (url.pathname !== "/search" || url.searchParams.get("format") !== "json") return new Response("not found", { status: 404 });
  const query = url.searchParams.get("q") ?? "";
  return Response.json({ query, results: results(query).map((r) => ({ title: r.title, url: r.url, content: r.snippet, engine: "stub" })) });
}
