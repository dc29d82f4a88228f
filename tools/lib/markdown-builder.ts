/**
 * Turns htmlparser2's events for one page into Markdown (the driver, html-to-markdown.ts, says
 * why htmlparser2 and not a DOM or HTMLRewriter).
 *
 * Kept: title, headings, paragraphs, links (made absolute), emphasis, code and pre blocks, lists,
 * block quotes, tables (as pipe tables), images with alt text. Dropped: scripts, styles,
 * navigation and other page chrome, hidden elements (markdown-elements.ts).
 *
 * Bounded by its caps, since a page is whatever a stranger's server sends: work per event is
 * constant but for the text it writes, nesting shown in a line's prefix stops at a few levels
 * (markdown-writer.ts), and the builder stops the parse at MAX_OPEN_ELEMENTS or MAX_MARKDOWN_CHARS.
 */

import { absoluteUrl } from "./absolute-url.ts";
import { blockGap, EMPHASIS, isDropped } from "./markdown-elements.ts";
import { MarkdownOutput } from "./markdown-output.ts";
import { MarkdownWriter, type Nesting } from "./markdown-writer.ts";

/**
 * Elements open at once beyond which conversion stops. htmlparser2 keeps its open elements in an
 * array it unshifts for every start tag and searches for every end tag, so each tag costs up to
 * the depth: 100,000 nested <div>s took minutes. Browsers stop nesting at 512 too (Blink's
 * parser), so a readable page never comes near it.
 */
export const MAX_OPEN_ELEMENTS = 512;

/**
 * The most Markdown one page makes. Markdown is usually shorter than its HTML, but a relative
 * link made absolute against a long page URL, or a line prefix, writes more than it read.
 */
export const MAX_MARKDOWN_CHARS = 5 * 1024 * 1024;

export interface PageMarkdown {
  title: string;
  markdown: string;
  /** Why conversion stopped before the page's end, when it did (a cap), for the caller to report. */
  stopped?: string;
}

interface TableState {
  rows: number;
  cells: number;
}

/** Turns a stream of HTML events into Markdown text; one instance per page. */
export class MarkdownBuilder {
  readonly #output = new MarkdownOutput(MAX_MARKDOWN_CHARS, () => {
    if (this.#stopped === undefined) this.#halt(`its Markdown passed ${MAX_MARKDOWN_CHARS} characters`);
  });
  readonly #nesting: Nesting = { quotes: 0, lists: [], cells: 0 };
  readonly #writer = new MarkdownWriter(this.#output, this.#nesting);
  #stopped: string | undefined;
  readonly #stop: () => void;
  readonly #base: URL;
  #title = "";
  #inTitle = false;
  #skipDepth = 0;
  #preDepth = 0;
  readonly #tables: TableState[] = [];
  /** Open links, innermost last; `at` is the output part of the link's "[". */
  readonly #links: { href: string | undefined; at: number }[] = [];
  /** What to do at each open element's end tag, innermost last (the parser reports every end, implied or void ones too). */
  readonly #closers: (() => void)[] = [];

  /** `stop` pauses the parser: called once, when a cap is reached. */
  constructor(base: URL, stop: () => void) {
    this.#base = base;
    this.#stop = stop;
  }

  /** Why the builder stopped the parse, or undefined while it goes on. */
  get stopped(): string | undefined {
    return this.#stopped;
  }

  open(tag: string, attributes: Readonly<Record<string, string>>): void {
    if (this.#stopped !== undefined) return;
    this.#handOver();
    if (this.#closers.length >= MAX_OPEN_ELEMENTS) return this.#halt(`the page nests more than ${MAX_OPEN_ELEMENTS} elements`);
    if (this.#skipDepth > 0) {
      this.#skipDepth += 1;
      this.#closers.push(this.#unskip);
      return;
    }
    if (isDropped(tag, attributes)) {
      this.#skipDepth = 1;
      this.#closers.push(this.#unskip);
      return;
    }
    let closer: (() => void) | undefined;
    this.#open(tag, attributes, (handler) => void (closer = handler));
    this.#closers.push(closer ?? NOTHING);
  }

  close(): void {
    if (this.#stopped !== undefined) return;
    this.#handOver();
    (this.#closers.pop() ?? NOTHING)();
  }

  text(raw: string): void {
    if (this.#stopped !== undefined || this.#skipDepth > 0 || raw === "") return;
    this.#handOver();
    if (this.#inTitle) this.#title += raw;
    else if (this.#preDepth > 0) this.#writer.preformatted(raw);
    else this.#writer.inline(raw);
  }

  readonly #unskip = () => void (this.#skipDepth -= 1);

  result(): PageMarkdown {
    const markdown = this.#output.end().trim();
    const title = this.#title.replace(/\s+/g, " ").trim();
    return this.#stopped === undefined ? { title, markdown } : { title, markdown, stopped: this.#stopped };
  }

  /**
   * Hands the parts written so far to the tidy, a group at a time. Not while the last part is an
   * open link's "[": the link may still close empty and take it back. Once anything follows it,
   * no open link can become empty again.
   */
  #handOver(): void {
    if (this.#links.at(-1)?.at === this.#output.last) return;
    this.#output.handOver(false);
  }

  #halt(reason: string): void {
    this.#stopped = reason;
    this.#stop();
  }

  #open(tag: string, attributes: Readonly<Record<string, string>>, end: (handler: () => void) => void): void {
    const writer = this.#writer;
    const nesting = this.#nesting;
    if (tag === "title") {
      this.#inTitle = true;
      end(() => void (this.#inTitle = false));
      return;
    }
    const heading = /^h([1-6])$/.exec(tag)?.[1];
    if (heading !== undefined) {
      writer.break(2);
      writer.marker(`${"#".repeat(Number(heading))} `);
      end(() => writer.break(2));
      return;
    }
    const emphasis = EMPHASIS[tag];
    if (emphasis !== undefined) {
      writer.marker(emphasis);
      end(() => writer.write(emphasis));
      return;
    }
    switch (tag) {
      case "br":
        return writer.break(1);
      case "hr":
        writer.break(2);
        writer.marker("---");
        return writer.break(2);
      case "a":
        return this.#openLink(attributes.href, end);
      case "img": {
        const alt = (attributes.alt ?? "").replace(/\s+/g, " ").trim();
        const src = absoluteUrl(attributes.src, this.#base);
        if (alt !== "" && src !== undefined) writer.marker(`![${alt}](${src})`);
        return;
      }
      case "code":
        if (this.#preDepth > 0) return;
        writer.marker("`");
        return end(() => writer.write("`"));
      case "pre":
        writer.break(2);
        writer.marker("```");
        writer.break(1);
        this.#preDepth += 1;
        return end(() => {
          this.#preDepth -= 1;
          writer.break(1);
          writer.marker("```");
          writer.break(2);
        });
      case "blockquote":
        writer.break(2);
        nesting.quotes += 1;
        return end(() => {
          writer.break(2);
          nesting.quotes -= 1;
        });
      case "ul":
      case "ol":
        writer.break(nesting.lists.length === 0 ? 2 : 1);
        nesting.lists.push({ ordered: tag === "ol", next: Number(attributes.start ?? "1") || 1 });
        return end(() => {
          nesting.lists.pop();
          writer.break(nesting.lists.length === 0 ? 2 : 1);
        });
      case "li": {
        const list = nesting.lists.at(-1);
        writer.break(1);
        writer.flushBreak(Math.max(0, nesting.lists.length - 1));
        writer.write(list?.ordered === true ? `${list.next++}. ` : "- ");
        writer.startLine();
        return;
      }
      case "table":
        writer.break(2);
        this.#tables.push({ rows: 0, cells: 0 });
        return end(() => {
          this.#tables.pop();
          writer.break(2);
        });
      case "tr":
        return this.#openRow(end);
      case "td":
      case "th":
        writer.write(nesting.cells === 0 ? " " : "");
        nesting.cells += 1;
        writer.startLine();
        return end(() => {
          nesting.cells -= 1;
          if (nesting.cells > 0) return;
          writer.dropSpace();
          writer.write(" |");
          const table = this.#tables.at(-1);
          if (table !== undefined) table.cells += 1;
        });
    }
    const gap = blockGap(tag);
    if (gap !== undefined) {
      writer.break(gap);
      end(() => writer.break(gap));
    }
  }

  #openLink(target: string | undefined, end: (handler: () => void) => void): void {
    const href = absoluteUrl(target, this.#base);
    if (href === undefined) return;
    this.#writer.marker("[");
    const link = { href, at: this.#output.last };
    this.#links.push(link);
    end(() => {
      this.#links.pop();
      // A link with no text (an icon, an anchor target) would print as a bare "[](url)".
      if (this.#output.last === link.at) this.#output.takeBack();
      else this.#writer.write(`](${href})`);
    });
  }

  #openRow(end: (handler: () => void) => void): void {
    const table = this.#tables.at(-1);
    if (table === undefined) return;
    const writer = this.#writer;
    writer.break(1);
    writer.flushBreak(0);
    writer.write("|");
    table.cells = 0;
    end(() => {
      table.rows += 1;
      // Markdown's pipe tables need the delimiter row after the first; its cells are the header.
      if (table.rows === 1 && table.cells > 0) {
        writer.break(1);
        writer.flushBreak(0);
        writer.write(`|${" --- |".repeat(table.cells)}`);
      }
      writer.break(1);
    });
  }
}

const NOTHING = () => {};
