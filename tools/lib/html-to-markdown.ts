/**
 * HTML to Markdown as the page streams in, on htmlparser2's tokenizer: no DOM is built (a 1 MB
 * page would be a tree of several MB in a 128 MB isolate), entities are decoded with the full
 * HTML table, and implied end tags (an unclosed <li> or <p>) are reported as the parser infers
 * them, so lists and quotes close where a browser would close them. markdown-builder.ts writes
 * the Markdown.
 *
 * Why not HTMLRewriter, though it is built in: every element handler is a call from native code
 * into JavaScript, and converting needs one on nearly every element. Measured in workerd on the
 * same 1 MB page, CPU per page: HTMLRewriter 3,230 ms, turndown over linkedom 530-620 ms, this
 * path 143 ms, with the same Markdown as the HTMLRewriter version (docs/web-tools.md).
 *
 * The parse runs in slices of SLICE_CHARS with a yield between them: a 5 MiB page of a million
 * tiny elements is about a second of synchronous work, which would hold every other request of
 * the isolate.
 */
import type { Parser as HtmlParser } from "htmlparser2";
import { type SliceBudget, yieldSlice } from "../../src/runtime/yield-slice.ts";
import { MarkdownBuilder, type PageMarkdown } from "./markdown-builder.ts";

export type { PageMarkdown } from "./markdown-builder.ts";

/**
 * htmlparser2, imported at its first use: its entity tables are built when it loads, a cost every
 * cold isolate paid at start-up whether or not it ever read a page (issue 33).
 */
let parserModule: Promise<{ Parser: typeof HtmlParser }> | undefined;
const loadParser = (): Promise<{ Parser: typeof HtmlParser }> => (parserModule ??= import("htmlparser2"));

/** Characters parsed between yields: 5-20 ms of work on the worst markup measured (a million tiny elements in 5 MiB). */
const SLICE_CHARS = 16 * 1024;

/**
 * Converts an HTML body to Markdown as it streams in; `base` resolves relative links (the page's
 * final URL after redirects). Stops early, saying why in `stopped`, at the builder's caps; throws
 * when `budget`'s signal fires or its deadline passes.
 */
export async function htmlToMarkdown(body: ReadableStream<Uint8Array>, base: URL, budget: SliceBudget = {}): Promise<PageMarkdown> {
  const { Parser } = await loadParser();
  const builder = new MarkdownBuilder(base, () => parser.pause());
  const parser = new Parser(
    { onopentag: (name, attributes) => builder.open(name, attributes), onclosetag: () => builder.close(), ontext: (text) => builder.text(text) },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // stream: true keeps a character split across chunks whole; the parser keeps a tag split across them whole.
  const decoder = new TextDecoder();
  let sinceYield = 0;
  for await (const chunk of body) {
    const text = decoder.decode(chunk, { stream: true });
    for (let at = 0; at < text.length && builder.stopped === undefined; at += SLICE_CHARS) {
      parser.write(text.slice(at, at + SLICE_CHARS));
      sinceYield += Math.min(SLICE_CHARS, text.length - at);
      if (sinceYield >= SLICE_CHARS) {
        sinceYield = 0;
        await yieldSlice(budget);
      }
    }
    // Leaving the loop cancels the rest of the body.
    if (builder.stopped !== undefined) break;
  }
  if (builder.stopped === undefined) parser.end(decoder.decode());
  return builder.result();
}

/**
 * A reader of HTML fragments' text (a search snippet with <strong> highlights), entities decoded
 * and whitespace collapsed; async only to load the parser once.
 */
export async function htmlTextReader(): Promise<(fragment: string) => string> {
  const { Parser } = await loadParser();
  return function htmlText(fragment) {
    const pieces: string[] = [];
    const parser = new Parser({ ontext: (chunk) => void pieces.push(chunk) }, { decodeEntities: true });
    parser.end(fragment);
    return pieces.join("").replace(/\s+/g, " ").trim();
  };
}
