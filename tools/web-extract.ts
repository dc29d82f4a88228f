/**
 * web_extract (Hermes's name; web_fetch does the same): reads web pages for the model. HTML
 * becomes Markdown on HTMLRewriter (tools/lib/html-to-markdown.ts says why not a DOM library);
 * JSON and text come back as they are. Pages are fetched in parallel, each behind the SSRF guard
 * at every redirect hop. One failing page does not fail the others; the call fails only when
 * every page did, with the first page's failure.
 */
import { z } from "zod";
import { toEnvelope } from "../src/errors/envelope.ts";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import type { ToolContext } from "../src/registry/types.ts";
import type { WorstInput } from "../src/registry/worst-input.ts";
import { fetchPage, MAX_PAGE_BYTES } from "./lib/fetch-page.ts";

const MAX_URLS = 5;
const DEFAULT_MAX_CHARS = 20_000;
const MAX_CHARS = 100_000;
const EXAMPLE = { urls: ["https://example.com/"], max_chars: 20_000 };

const schema = () =>
  z.object({
    urls: z
      .array(z.url({ protocol: /^https?$/, error: "must be an absolute http or https URL, such as https://example.com/page" }))
      .min(1)
      .max(MAX_URLS)
      .describe(
        `1-${MAX_URLS} absolute http(s) URLs to read, fetched in parallel. Example: ["https://example.com/docs/page"]. Private, loopback and link-local addresses are refused.`,
      ),
    max_chars: z
      .number()
      .int()
      .min(500)
      .max(MAX_CHARS)
      .default(DEFAULT_MAX_CHARS)
      .describe(
        `Characters of content returned per page, ${500}-${MAX_CHARS} (default ${DEFAULT_MAX_CHARS}). Beyond it the page's head and tail are shown and the full text is stored for read_result.`,
      ),
  });

async function extract(ctx: ToolContext, url: string, index: number, maxChars: number) {
  try {
    return await fetchPage(ctx, url, `urls.${index}`, maxChars);
  } catch (error) {
    if (!(error instanceof ToolFailureError)) throw error;
    return { url, failure: error };
  }
}

const DESCRIPTION =
  "Fetches web pages and returns their readable content: HTML as clean Markdown (title, headings, links, lists, tables; scripts, styles and navigation dropped), JSON and plain text as they are. " +
  "Per page: url, final_url (after redirects), status, content_type, format (markdown, json, text or other), title, content, total_chars, truncated and, when cut, a read_result handle. " +
  `Reads at most ${MAX_PAGE_BYTES / 1024 / 1024} MiB of a page. Example: ${JSON.stringify(EXAMPLE)}`;

async function handler({ urls, max_chars }: z.output<ReturnType<typeof schema>>, ctx: ToolContext) {
  const pages = await Promise.all(urls.map((url, index) => extract(ctx, url, index, max_chars)));
  const failures = pages.filter((page) => "failure" in page);
  const first = failures[0];
  if (first !== undefined && failures.length === pages.length) throw first.failure;
  return {
    pages: pages.map((page) => {
      if (!("failure" in page)) return page;
      const { error, error_code } = toEnvelope(page.failure.failure);
      return { url: page.url, error, error_code };
    }),
  };
}

// Without an outside network the fetch fails at once, so these test the door (URL parsing, the
// SSRF guard); the conversion's own worst pages are test/tools/html-to-markdown.test.ts's.
const WORST_INPUTS: readonly WorstInput[] = [
  {
    name: "five URLs of 1 MiB each at the max_chars cap",
    args: () => ({ urls: Array.from({ length: MAX_URLS }, (_, i) => `https://example.com/${i}?q=${"a".repeat(1024 * 1024)}`), max_chars: MAX_CHARS }),
  },
  { name: "10,000 URLs the five-URL cap refuses", args: () => ({ urls: Array.from({ length: 10_000 }, (_, i) => `https://example.com/${i}`) }) },
];

const shared = {
  emoji: "📄",
  readOnly: true,
  schema,
  example: EXAMPLE,
  worstInputs: WORST_INPUTS,
  timeoutMs: 30_000,
  maxResultSizeChars: MAX_URLS * MAX_CHARS + 10_000,
  handler,
};

registry.register({ name: "web_extract", toolset: "web", description: DESCRIPTION, ...shared });
registry.register({
  name: "web_fetch",
  toolset: "web",
  description: `Same as web_extract (an alias for agents that know this name). ${DESCRIPTION}`,
  ...shared,
});
