/**
 * web_extract of a 1 MB HTML page served on loopback (issue 13): workerd CPU per page, through
 * the full app (auth, limits, audit) as an agent would call it. Two references in the same
 * run say what the figure is made of: the same 1 MB sent as text/plain (fetch, size limit and
 * storing the full text for read_result, no HTML parsing) and a plain echo call (the gateway
 * alone). The page is generated here and served by this Node process on 127.0.0.1; the bench
 * Worker may reach it because serve.ts gives the bench, and only the bench, OUTBOUND_ALLOW for
 * 127.0.0.1. The issue names no target, so the check only proves the page was converted.
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpuPerRequest } from "../cpu-per-request.ts";
import type { RequestSpec } from "../load.ts";
import { ECHO_CALL_BODY, TOOL_CALLS_PATH, toolCallsBody } from "../requests.ts";
import type { Row, Scenario } from "../scenario.ts";

const PAGE_BYTES = 1024 * 1024;
const MAX_CHARS = 100_000;

/** A 1 MB article-like page: sections of headings, paragraphs with links and emphasis, lists, tables, and page chrome to drop. */
function page(): string {
  const parts = [
    "<!doctype html><html><head><title>Bench page</title><style>body{font:16px sans-serif}</style><script>window.analytics=1</script></head><body><nav><a href='/'>Home</a><a href='/a'>A</a></nav><main>",
  ];
  let size = parts[0]?.length ?? 0;
  for (let n = 0; size < PAGE_BYTES - 200; n++) {
    const block =
      `<section><h2 id="s${n}">Section ${n}</h2><p>Paragraph ${n} links to <a href="/doc/${n}?ref=bench">document ${n}</a> with <strong>bold</strong>, <em>emphasis</em> &amp; <code>code</code>. ` +
      `${"The quick brown fox jumps over the lazy dog. ".repeat(8)}</p><ul><li>first ${n}</li><li>second ${n}</li></ul>` +
      `<table><tr><th>key</th><th>value</th></tr><tr><td>${n}</td><td>${n * n}</td></tr></table></section>`;
    parts.push(block);
    size += block.length;
  }
  parts.push("</main><footer>footer</footer></body></html>");
  return parts.join("");
}

async function serve(html: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const text = request.url?.startsWith("/page.txt") === true;
    response.writeHead(200, { "content-type": text ? "text/plain; charset=utf-8" : "text/html; charset=utf-8", "content-length": Buffer.byteLength(html) });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const webExtractPage: Scenario = {
  id: "web-extract-page",
  title: "web_extract of a 1 MB HTML page on loopback: workerd CPU per page, full app",
  async run(ctx) {
    const html = page();
    const { server, origin } = await serve(html);
    try {
      const count = ctx.settings.rounds * 5;
      const extract = (path: string): RequestSpec => ({
        method: "POST",
        path: TOOL_CALLS_PATH,
        body: toolCallsBody("web_extract", { urls: [`${origin}${path}`], max_chars: MAX_CHARS }),
      });
      const htmlRun = await cpuPerRequest(ctx, extract("/page.html"), count, "web-extract-page");
      const textRun = await cpuPerRequest(ctx, extract("/page.txt"), count, "web-extract-page");
      const echoRun = await cpuPerRequest(ctx, { method: "POST", path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY }, count, "web-extract-page");
      const result = JSON.parse(htmlRun.first) as { results: { status: string; message: { content: string } }[] };
      const call = result.results[0];
      const pageOut = call?.status === "ok" ? (JSON.parse(call.message.content) as { pages: { format?: string; total_chars?: number }[] }).pages[0] : undefined;
      const row = (label: string, run: { cpuUs: number; p50Ms: number }, note: string): Row => ({
        label,
        values: { cpuUs: run.cpuUs, p50: run.p50Ms, overEcho: run.cpuUs - echoRun.cpuUs },
        note,
      });
      return {
        method: `${count} sequential calls each through the full app with the admin token after one untimed call; workerd CPU from /proc around them, divided by the calls; max_chars ${MAX_CHARS}, so the full text is also stored for read_result as in real use`,
        columns: [
          { key: "cpuUs", header: "workerd CPU us/call", digits: 0 },
          { key: "p50", header: "p50 ms", digits: 1 },
          { key: "overEcho", header: "CPU us over echo", digits: 0 },
        ],
        rows: [
          row(`web_extract ${(html.length / 1024 / 1024).toFixed(2)} MB HTML`, htmlRun, `${pageOut?.total_chars ?? 0} characters of Markdown`),
          row("web_extract same bytes as text/plain", textRun, "fetch, size limit and KV store, no HTML parsing"),
          row("echo", echoRun, "the gateway alone"),
        ],
        checks: [
          {
            label: "the 1 MB page comes back as Markdown",
            target: "format markdown, > 100,000 chars",
            actual: `${pageOut?.format ?? call?.status ?? "no result"}, ${pageOut?.total_chars ?? 0} chars`,
            pass: pageOut?.format === "markdown" && (pageOut.total_chars ?? 0) > 100_000,
          },
        ],
      };
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
};
