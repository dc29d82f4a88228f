/**
 * The HTML converter web_extract streams pages through, on pages built to stall it: each case
 * is the worst of its kind within the page cap (5 MiB), and each must end, with the right text.
 * A quadratic path here held the isolate for minutes (100,000 nested <div>s), so finishing at
 * all within the test's timeout is the proof.
 */
import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../tools/lib/html-to-markdown.ts";
import { MAX_MARKDOWN_CHARS, MAX_OPEN_ELEMENTS } from "../../tools/lib/markdown-builder.ts";

const BASE = new URL("https://example.com/docs/page");

/** The page as a body in pieces of `chunk` characters, as a network would deliver it. */
function body(html: string, chunk = 256 * 1024): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= html.length) return controller.close();
      controller.enqueue(encoder.encode(html.slice(at, at + chunk)));
      at += chunk;
    },
  });
}

describe("htmlToMarkdown on hostile pages", () => {
  it("stops at 100,000 nested elements and keeps the text before them", async () => {
    const page = await htmlToMarkdown(body(`<p>Intro words.</p>${"<div>".repeat(100_000)}deep`), BASE);
    expect(page.markdown).toBe("Intro words.");
    expect(page.stopped).toBe(`the page nests more than ${MAX_OPEN_ELEMENTS} elements`);
  });

  it("converts a page that closes a million elements it never opened, under deep nesting", async () => {
    const html = `${"<span>".repeat(MAX_OPEN_ELEMENTS - 2)}kept${"</i>".repeat(1_000_000)} end`;
    const page = await htmlToMarkdown(body(html), BASE);
    expect(page).toEqual({ title: "", markdown: "kept end" });
  });

  it("converts a million tiny elements, every one of them", async () => {
    const page = await htmlToMarkdown(body("<b>x</b> ".repeat(580_000)), BASE);
    expect(page.stopped).toBeUndefined();
    expect(page.markdown.split("**x**").length - 1).toBe(580_000);
  });

  it("keeps a link whose 4 MB href is one attribute", async () => {
    const href = `https://example.com/${"a".repeat(4_000_000)}`;
    const page = await htmlToMarkdown(body(`<a href="${href}">long</a> after`), BASE);
    expect(page.markdown).toBe(`[long](${href}) after`);
  });

  it("drops 5 MB of trailing spaces in a pre block in one pass", async () => {
    const page = await htmlToMarkdown(body(`<pre>code${" ".repeat(5_000_000)}\nnext</pre>`), BASE);
    expect(page.markdown).toBe("```\ncode\nnext\n```");
  });

  it("keeps a run of 5 MB of spaces that text follows on the same line", async () => {
    const page = await htmlToMarkdown(body(`<pre>a${" ".repeat(5_000_000)}b</pre>`), BASE);
    expect(page.markdown).toBe(`\`\`\`\na${" ".repeat(5_000_000)}b\n\`\`\``);
  });

  it("prints quotes nested 500 deep with a prefix of eight levels", async () => {
    const page = await htmlToMarkdown(body(`${"<blockquote>".repeat(500)}${"line<br>".repeat(100_000)}`), BASE);
    const lines = page.markdown.split("\n");
    expect(lines).toHaveLength(100_000);
    expect(lines[99_999]).toBe(`${"> ".repeat(8)}line`);
  });

  it("stops when links made absolute against a long page URL would write past the Markdown cap", async () => {
    const longBase = new URL(`https://example.com/${"dir/".repeat(25_000)}page`);
    const page = await htmlToMarkdown(body('<a href=".">x</a> '.repeat(200_000)), longBase);
    expect(page.stopped).toBe(`its Markdown passed ${MAX_MARKDOWN_CHARS} characters`);
    expect(page.markdown.length).toBeLessThan(MAX_MARKDOWN_CHARS + longBase.href.length + 10);
  });

  it("stops with the call's deadline instead of converting the rest", async () => {
    const conversion = htmlToMarkdown(body("<b>x</b>".repeat(600_000)), BASE, { deadlineAt: Date.now() - 1 });
    await expect(conversion).rejects.toThrow("deadline");
  });

  it("tidies lines across pieces of the stream: indentation kept, trailing blanks and extra blank lines dropped", async () => {
    const html = "<pre>\n  one  \n\n\n\n  two\t\n</pre><p>after</p>";
    const page = await htmlToMarkdown(body(html, 3), BASE);
    expect(page.markdown).toBe("```\n  one\n\n  two\n\n```\n\nafter");
  });
});

describe("htmlToMarkdown links", () => {
  it("percent-encodes parentheses in a link target, so a ')' cannot end the Markdown link early", async () => {
    const page = await htmlToMarkdown(body(`<p><a href="/img/p(1).png">the picture</a></p>`), BASE);
    expect(page.markdown).toBe("[the picture](https://example.com/img/p%281%29.png)");
  });
});
