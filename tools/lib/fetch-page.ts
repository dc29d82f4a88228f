/**
 * One page of web_extract: fetched through the SSRF guard, HTML turned into Markdown as it
 * streams in, JSON and plain text returned as they are, anything else reported by type and size
 * rather than dumped. The text beyond the caller's character cap is previewed and stored exactly
 * as the gateway's own size limit does it (src/results/limit-result.ts), with a read_result handle.
 */
import { loadConfig } from "../../src/config/config.ts";
import { capStream, readTextCapped } from "../../src/net/read-capped.ts";
import type { ToolContext } from "../../src/registry/types.ts";
import { limitResult } from "../../src/results/limit-result.ts";
import { checkedFetch } from "./checked-fetch.ts";
import { htmlToMarkdown } from "./html-to-markdown.ts";

/** The most of one page's body that is read; a bigger page is converted up to here and says so. */
export const MAX_PAGE_BYTES = 5 * 1024 * 1024;

const ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/json;q=0.8,text/plain;q=0.7,*/*;q=0.1";
const USER_AGENT = "toolgate-web-extract/1.0 (+https://github.com/toolgate)";

export interface ExtractedPage {
  url: string;
  /** Where the last redirect led. */
  final_url: string;
  status: number;
  content_type: string;
  /** html, json, text, or other (not returned). */
  format: "markdown" | "json" | "text" | "other";
  title: string;
  content: string;
  /** The content's length before the cap. */
  total_chars: number;
  truncated: boolean;
  /** read_result handle of the full text, when it was cut and could be stored. */
  handle?: string;
  /** True when only the body's start was read: it was bigger than MAX_PAGE_BYTES, or its HTML passed a cap of the Markdown builder. */
  body_cut?: boolean;
}

function formatOf(contentType: string): ExtractedPage["format"] {
  if (/^(text\/html|application\/xhtml\+xml)\b/.test(contentType)) return "markdown";
  if (/^application\/([\w.-]+\+)?json\b/.test(contentType)) return "json";
  if (/^text\//.test(contentType) || /^application\/(xml|[\w.-]+\+xml|javascript|x-ndjson)\b/.test(contentType)) return "text";
  // No type at all: most servers that omit it serve HTML.
  return contentType === "" ? "markdown" : "other";
}

/** Fetches `url` and returns its readable content, cut at `maxChars` characters. */
export async function fetchPage(ctx: ToolContext, url: string, field: string, maxChars: number): Promise<ExtractedPage> {
  const response = await checkedFetch(ctx, url, { headers: { accept: ACCEPT, "user-agent": USER_AGENT } }, { field, follow: true });
  const contentType = (response.headers.get("content-type") ?? "").toLowerCase().trim();
  const format = formatOf(contentType);
  const base = { url, final_url: response.url === "" ? url : response.url, status: response.status, content_type: contentType, format };
  let title = "";
  let text: string;
  let cut = false;
  if (format === "other" || response.body === null) {
    await response.body?.cancel();
    const size = response.headers.get("content-length");
    text = `[Not text: ${contentType} (${size === null ? "size unknown" : `${size} bytes`}); web_extract returns HTML, JSON and text only.]`;
  } else if (format === "markdown") {
    const capped = capStream(response.body, MAX_PAGE_BYTES);
    const page = await htmlToMarkdown(capped.stream, new URL(base.final_url), ctx);
    title = page.title;
    // Said in the text as well as in body_cut, so a model reading only the content knows the rest is missing.
    text = page.stopped === undefined ? page.markdown : `${page.markdown}\n\n[Conversion stopped here: ${page.stopped}.]`;
    cut = capped.cut || page.stopped !== undefined;
  } else {
    const read = await readTextCapped(response, MAX_PAGE_BYTES);
    text = read.text;
    cut = read.cut;
  }
  const limited = await limitResult(text, maxChars, {
    tool: ctx.toolName,
    callId: ctx.callId,
    sessionId: ctx.sessionId,
    env: ctx.env,
    ttlSeconds: loadConfig(ctx.env).resultTtlSeconds,
  });
  return {
    ...base,
    title,
    content: limited.content,
    total_chars: limited.totalChars,
    truncated: limited.truncated,
    ...(limited.handle === undefined ? {} : { handle: limited.handle }),
    ...(cut ? { body_cut: true } : {}),
  };
}
