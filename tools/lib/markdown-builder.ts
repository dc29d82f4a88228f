/**
 * Turns htmlparser2's events for one page into Markdown (the driver, html-to-markdown.ts, says
 * why htmlparser2 and not a DOM or HTMLRewriter).
 *
 * Kept: title, headings, paragraphs, links (made absolute), emphasis, code and pre blocks, lists,
 * block quotes, tables (as pipe tables), images with alt text. Dropped: scripts, styles,
 * navigation and other page chrome, hidden elements.
 *
 * Bounded by its caps, since a page is whatever a stranger's server sends: work per event is
 * constant but for the text it writes, nesting shown in a line's prefix stops at
 * MAX_SHOWN_NESTING, and the builder stops the parse at MAX_OPEN_ELEMENTS or MAX_MARKDOWN_CHARS.
 */

import { MarkdownTidy } from "./markdown-tidy.ts";

const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "canvas",
  "iframe",
  "object",
  "nav",
  "aside",
  "footer",
  "form",
  "button",
  "select",
  "dialog",
]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"]);
const BLANK_LINE_BLOCKS = new Set(["p", "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "section", "article", "main", "header", "details"]);
const LINE_BLOCKS = new Set(["div", "dt", "dd", "figcaption", "summary", "address", "caption", "center"]);
const EMPHASIS: Readonly<Record<string, string>> = { strong: "**", b: "**", em: "_", i: "_", del: "~~", s: "~~" };

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

/** Parts, or characters, written before they are joined and handed to the tidy. */
const HANDOVER_PARTS = 4096;
const HANDOVER_CHARS = 64 * 1024;

/** Quote and list levels shown in a line's prefix; deeper levels print at this one, so a prefix stays short. */
const MAX_SHOWN_NESTING = 8;

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
  /** Output not yet handed to the tidy: kept apart only while a link might still turn out empty. */
  readonly #parts: string[] = [];
  /** Parts handed to the tidy so far, so a link's `at` counts from the page's first part. */
  #tidied = 0;
  /** Characters in #parts. */
  #waiting = 0;
  readonly #tidy = new MarkdownTidy();
  #chars = 0;
  #stopped: string | undefined;
  readonly #stop: () => void;
  readonly #base: URL;
  #title = "";
  #inTitle = false;
  #skipDepth = 0;
  #preDepth = 0;
  #cellDepth = 0;
  #quoteDepth = 0;
  readonly #lists: { ordered: boolean; next: number }[] = [];
  readonly #tables: TableState[] = [];
  readonly #links: { href: string | undefined; at: number }[] = [];
  /** What to do at each open element's end tag, innermost last (the parser reports every end, implied or void ones too). */
  readonly #closers: (() => void)[] = [];
  /** 0: nothing, 1: a line break, 2: a blank line before the next output. */
  #pendingBreak = 0;
  #pendingSpace = false;
  #atLineStart = true;

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
    const role = attributes.role;
    if (SKIPPED.has(tag) || "hidden" in attributes || attributes["aria-hidden"] === "true" || (role !== undefined && CHROME_ROLES.has(role))) {
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
    else if (this.#preDepth > 0) this.#preformatted(raw);
    else this.#inline(raw);
  }

  readonly #unskip = () => void (this.#skipDepth -= 1);

  result(): PageMarkdown {
    this.#handOver(true);
    const markdown = this.#tidy.end().trim();
    const title = this.#title.replace(/\s+/g, " ").trim();
    return this.#stopped === undefined ? { title, markdown } : { title, markdown, stopped: this.#stopped };
  }

  /**
   * Hands the parts written so far to the tidy, a group at a time, so the page's end has little
   * left to join. Not while the last part is an open link's "[": the link may still close empty
   * and take it back. Once anything follows it, no open link can become empty again.
   */
  #handOver(all = false): void {
    if (this.#parts.length === 0 || (!all && this.#parts.length < HANDOVER_PARTS && this.#waiting < HANDOVER_CHARS)) return;
    if (!all && this.#links.at(-1)?.at === this.#tidied + this.#parts.length - 1) return;
    this.#tidy.write(this.#parts.join(""));
    this.#tidied += this.#parts.length;
    this.#parts.length = 0;
    this.#waiting = 0;
  }

  #halt(reason: string): void {
    this.#stopped = reason;
    this.#stop();
  }

  #open(tag: string, attributes: Readonly<Record<string, string>>, end: (handler: () => void) => void): void {
    if (tag === "title") {
      this.#inTitle = true;
      end(() => void (this.#inTitle = false));
      return;
    }
    const heading = /^h([1-6])$/.exec(tag)?.[1];
    if (heading !== undefined) {
      this.#break(2);
      this.#marker(`${"#".repeat(Number(heading))} `);
      end(() => this.#break(2));
      return;
    }
    const emphasis = EMPHASIS[tag];
    if (emphasis !== undefined) {
      this.#marker(emphasis);
      end(() => this.#write(emphasis));
      return;
    }
    switch (tag) {
      case "br":
        return this.#break(1);
      case "hr":
        this.#break(2);
        this.#marker("---");
        return this.#break(2);
      case "a":
        return this.#openLink(attributes.href, end);
      case "img": {
        const alt = (attributes.alt ?? "").replace(/\s+/g, " ").trim();
        const src = this.#absolute(attributes.src);
        if (alt !== "" && src !== undefined) this.#marker(`![${alt}](${src})`);
        return;
      }
      case "code":
        if (this.#preDepth > 0) return;
        this.#marker("`");
        return end(() => this.#write("`"));
      case "pre":
        this.#break(2);
        this.#marker("```");
        this.#break(1);
        this.#preDepth += 1;
        return end(() => {
          this.#preDepth -= 1;
          this.#break(1);
          this.#marker("```");
          this.#break(2);
        });
      case "blockquote":
        this.#break(2);
        this.#quoteDepth += 1;
        return end(() => {
          this.#break(2);
          this.#quoteDepth -= 1;
        });
      case "ul":
      case "ol":
        this.#break(this.#lists.length === 0 ? 2 : 1);
        this.#lists.push({ ordered: tag === "ol", next: Number(attributes.start ?? "1") || 1 });
        return end(() => {
          this.#lists.pop();
          this.#break(this.#lists.length === 0 ? 2 : 1);
        });
      case "li": {
        const list = this.#lists.at(-1);
        this.#break(1);
        this.#flushBreak(Math.max(0, this.#lists.length - 1));
        this.#write(list?.ordered === true ? `${list.next++}. ` : "- ");
        this.#atLineStart = true;
        return;
      }
      case "table":
        this.#break(2);
        this.#tables.push({ rows: 0, cells: 0 });
        return end(() => {
          this.#tables.pop();
          this.#break(2);
        });
      case "tr":
        return this.#openRow(end);
      case "td":
      case "th":
        this.#write(this.#cellDepth === 0 ? " " : "");
        this.#cellDepth += 1;
        this.#atLineStart = true;
        return end(() => {
          this.#cellDepth -= 1;
          if (this.#cellDepth > 0) return;
          this.#pendingSpace = false;
          this.#write(" |");
          const table = this.#tables.at(-1);
          if (table !== undefined) table.cells += 1;
        });
    }
    if (BLANK_LINE_BLOCKS.has(tag) || LINE_BLOCKS.has(tag) || tag === "dt" || tag === "dd") {
      const gap = BLANK_LINE_BLOCKS.has(tag) ? 2 : 1;
      this.#break(gap);
      end(() => this.#break(gap));
    }
  }

  #openLink(target: string | undefined, end: (handler: () => void) => void): void {
    const href = this.#absolute(target);
    if (href === undefined) return;
    this.#marker("[");
    const link = { href, at: this.#tidied + this.#parts.length - 1 };
    this.#links.push(link);
    end(() => {
      this.#links.pop();
      // A link with no text (an icon, an anchor target) would print as a bare "[](url)".
      if (this.#tidied + this.#parts.length - 1 === link.at) this.#parts.pop();
      else this.#write(`](${href})`);
    });
  }

  #openRow(end: (handler: () => void) => void): void {
    const table = this.#tables.at(-1);
    if (table === undefined) return;
    this.#break(1);
    this.#flushBreak(0);
    this.#write("|");
    table.cells = 0;
    end(() => {
      table.rows += 1;
      // Markdown's pipe tables need the delimiter row after the first; its cells are the header.
      if (table.rows === 1 && table.cells > 0) {
        this.#break(1);
        this.#flushBreak(0);
        this.#write(`|${" --- |".repeat(table.cells)}`);
      }
      this.#break(1);
    });
  }

  /** An absolute http(s) or mailto URL for an attribute value; anything else (javascript:, data:, a bare #) is dropped. */
  #absolute(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return undefined;
    try {
      const url = new URL(trimmed, this.#base);
      return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:"
        ? url.href.replace(/[()]/g, (c) => encodeURIComponent(c))
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** Text of a pre block, kept as written; the parser drops a newline right after <pre>, so we do too. */
  #preformatted(text: string): void {
    if (this.#pendingBreak > 0) {
      this.#flushBreak(0);
      this.#write(text.startsWith("\n") ? text.slice(1) : text);
    } else this.#write(text);
  }

  #inline(text: string): void {
    const collapsed = text.replace(/\s+/g, " ");
    const body = collapsed.trim();
    if (body === "") {
      if (collapsed !== "") this.#pendingSpace = true;
      return;
    }
    if (collapsed.startsWith(" ")) this.#pendingSpace = true;
    this.#marker(this.#cellDepth > 0 ? body.replace(/\|/g, "\\|") : body);
    this.#pendingSpace = collapsed.endsWith(" ");
  }

  /** Writes `text` after any pending break or space (an opening marker or a word). */
  #marker(text: string): void {
    if (this.#pendingBreak > 0) this.#flushBreak(this.#lists.length);
    else if (this.#pendingSpace && !this.#atLineStart) this.#push(" ");
    this.#pendingSpace = false;
    this.#write(text);
  }

  #write(text: string): void {
    if (text === "") return;
    this.#push(text);
    this.#atLineStart = false;
  }

  #push(text: string): void {
    this.#parts.push(text);
    this.#chars += text.length;
    this.#waiting += text.length;
    if (this.#chars > MAX_MARKDOWN_CHARS && this.#stopped === undefined) this.#halt(`its Markdown passed ${MAX_MARKDOWN_CHARS} characters`);
  }

  #break(lines: 1 | 2): void {
    // Inside a table cell a line break would end the row, and the first output needs no gap.
    if (this.#cellDepth > 0) this.#pendingSpace = true;
    else if (this.#chars > 0) this.#pendingBreak = Math.max(this.#pendingBreak, lines);
  }

  #flushBreak(indent: number): void {
    if (this.#pendingBreak > 0) {
      const quotes = Math.min(this.#quoteDepth, MAX_SHOWN_NESTING);
      this.#push(`${"\n".repeat(this.#pendingBreak)}${"> ".repeat(quotes)}${"  ".repeat(Math.min(indent, MAX_SHOWN_NESTING))}`);
      this.#pendingBreak = 0;
    }
    this.#pendingSpace = false;
    this.#atLineStart = true;
  }
}

const NOTHING = () => {};
