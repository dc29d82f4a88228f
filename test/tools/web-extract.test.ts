/**
 * web_extract through POST /v1/tool-calls with a created key, against the web of
 * test/support/web-stub.ts: HTML to Markdown, JSON and text as they are, the character cap's
 * preview with a read_result handle, and the SSRF guard at the first URL and at every redirect.
 */
import { describe, expect, it } from "vitest";
import { type CallResult, callTools, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { WEB_HOST } from "../support/web-stub.ts";

const page = (path: string) => `http://${WEB_HOST}${path}`;

interface Page {
  url: string;
  final_url: string;
  status: number;
  format: string;
  title: string;
  content: string;
  total_chars: number;
  truncated: boolean;
  handle?: string;
  error?: string;
  error_code?: string;
}

async function extract(args: Record<string, unknown>, tool = "web_extract"): Promise<CallResult> {
  const agent = await createKey({ name: `we-${crypto.randomUUID()}`, role: "agent", toolsets: ["web", "results"] });
  return only(await callTools(agent, `we-${crypto.randomUUID()}`, [openaiCall("c1", tool, args)]));
}

const pagesOf = (result: CallResult): Page[] => (JSON.parse(result.message.content) as { pages: Page[] }).pages;

describe("web_extract", () => {
  it("turns an HTML page into Markdown: title, headings, links, tables, lists and code kept; scripts, styles and navigation dropped", async () => {
    const result = await extract({ urls: [page("/article.html")] });
    expect(result.status).toBe("ok");
    const [article] = pagesOf(result);
    expect(article).toMatchObject({ status: 200, format: "markdown", title: "Edge & Tools", truncated: false });
    const md = article?.content ?? "";
    expect(md).toContain("# Tools at the edge");
    expect(md).toContain("## Numbers");
    expect(md).toContain("Workers run **close** to users — see [the intro](http://web.upstream.test/docs/intro?x=1) and _more_.");
    expect(md).toContain("| Name | Value |\n| --- | --- |\n| alpha | 1 \\| 2 |\n| beta | 3 |");
    expect(md).toContain("- first item\n- second `code`");
    expect(md).toContain("1. one\n2. two");
    expect(md).toContain("```\nconst x = 1;\nif (x < 2) run();\n```");
    expect(md).toContain("> Quoted words.");
    expect(md).toContain("![A cat](http://web.upstream.test/cat.png)");
    for (const dropped of ["tracking", "color: red", "About us", "Site logo", "Copyright footer", "Hidden text", "nope"]) expect(md).not.toContain(dropped);
  });

  it("answers to web_fetch as well", async () => {
    const [article] = pagesOf(await extract({ urls: [page("/article.html")] }, "web_fetch"));
    expect(article?.content).toContain("# Tools at the edge");
  });

  it("returns JSON and plain text as they are, and reports a binary body by type and size without its bytes", async () => {
    const pages = pagesOf(await extract({ urls: [page("/data.json"), page("/notes.txt"), page("/image.png")] }));
    expect(pages[0]).toMatchObject({ format: "json", content: '{"items":[1,2,3],"name":"data"}' });
    expect(pages[1]).toMatchObject({ format: "text", content: "line one\n  line two keeps its indent\n" });
    expect(pages[2]).toMatchObject({ format: "other", content: expect.stringContaining("image/png (8 bytes)") });
  });

  it("cuts a page at max_chars with the size limit's head and tail preview and a handle that read_result pages through", async () => {
    const agent = await createKey({ name: "we-cap", role: "agent", toolsets: ["web", "results"] });
    const [big] = pagesOf(only(await callTools(agent, "we-cap", [openaiCall("c1", "web_extract", { urls: [page("/big.html?kb=64")], max_chars: 2_000 })])));
    expect(big).toMatchObject({ truncated: true, title: "Big page" });
    expect(big?.content.length).toBeLessThanOrEqual(2_000);
    expect(big?.content).toMatch(/^\[Result truncated: \d+ characters in all/);
    expect(big?.content).toContain("## Section 0");
    expect(big?.total_chars).toBeGreaterThan(20_000);
    const read = only(await callTools(agent, "we-cap", [openaiCall("c2", "read_result", { handle: big?.handle, offset: 0, limit: 50_000 })]));
    const stored = JSON.parse(read.message.content) as { total_chars: number; content: string };
    expect(stored.total_chars).toBe(big?.total_chars);
    expect(stored.content).toContain("[a link](http://web.upstream.test/s/1)");
  });

  it("follows a redirect to a public page and reports where it ended", async () => {
    const [moved] = pagesOf(await extract({ urls: [page(`/redirect?to=${encodeURIComponent(page("/notes.txt"))}`)] }));
    expect(moved).toMatchObject({ status: 200, format: "text", final_url: page("/notes.txt") });
  });

  it("refuses a redirect to a private address with a structured error, and fetches nothing there", async () => {
    for (const target of ["http://127.0.0.1:8787/admin", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://printer.local/"]) {
      const result = await extract({ urls: [page(`/redirect?to=${encodeURIComponent(target)}`)] });
      expect(result, target).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
      const body = JSON.parse(result.message.content) as { error: string; retryable: boolean };
      expect(body.error).toMatch(/Redirects to private, loopback or link-local addresses are refused/);
      expect(body.retryable).toBe(false);
    }
  });

  it("refuses a private URL in the arguments as INVALID_ARGUMENTS naming the field", async () => {
    const result = await extract({ urls: [page("/article.html"), "http://10.0.0.7/"] });
    expect(result.status).toBe("ok");
    const pages = pagesOf(result);
    expect(pages[0]?.title).toBe("Edge & Tools");
    expect(pages[1]).toMatchObject({ url: "http://10.0.0.7/", error_code: "INVALID_ARGUMENTS", error: expect.stringContaining("10.0.0.7") });
    const alone = await extract({ urls: ["http://localhost:8787/"] });
    expect(alone).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(JSON.parse(alone.message.content)).toMatchObject({ issues: [{ path: "urls.0", message: expect.stringContaining("localhost") }] });
  });

  it("refuses URLs that are not http(s), and more than five, naming the field", async () => {
    const ftp = await extract({ urls: ["ftp://example.com/x"] });
    expect(ftp).toMatchObject({ status: "error", error_code: "INVALID_ARGUMENTS" });
    expect(JSON.parse(ftp.message.content)).toMatchObject({ issues: [{ path: "urls.0" }] });
    const many = await extract({ urls: Array.from({ length: 6 }, (_, i) => page(`/notes.txt?${i}`)) });
    expect(JSON.parse(many.message.content)).toMatchObject({ error_code: "INVALID_ARGUMENTS", issues: [{ path: "urls" }] });
  });
});
