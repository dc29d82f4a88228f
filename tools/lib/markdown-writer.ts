/**
 * Writes a page's Markdown a piece at a time and decides the whitespace between pieces: a line
 * break or blank line waits until something follows it, and is then written with the line's
 * quote and list prefix; a space between words waits the same way; a pre block's text is kept
 * as written.
 */
import type { MarkdownOutput } from "./markdown-output.ts";

/** Quote and list levels shown in a line's prefix; deeper levels print at this one, so a prefix stays short. */
const MAX_SHOWN_NESTING = 8;

/** The open elements that shape a line: kept by the builder as it opens and closes them, read by the writer. */
export interface Nesting {
  quotes: number;
  lists: { ordered: boolean; next: number }[];
  /** Table cells open: a line break inside one would end the row, so it becomes a space. */
  cells: number;
}

/** The spacing state of one page's Markdown, over its output. */
export class MarkdownWriter {
  readonly #output: MarkdownOutput;
  readonly #nesting: Readonly<Nesting>;
  /** 0: nothing, 1: a line break, 2: a blank line before the next output. */
  #pendingBreak = 0;
  #pendingSpace = false;
  #atLineStart = true;

  constructor(output: MarkdownOutput, nesting: Readonly<Nesting>) {
    this.#output = output;
    this.#nesting = nesting;
  }

  /** Text of a pre block, kept as written; the parser drops a newline right after <pre>, so we do too. */
  preformatted(text: string): void {
    if (this.#pendingBreak > 0) {
      this.flushBreak(0);
      this.write(text.startsWith("\n") ? text.slice(1) : text);
    } else this.write(text);
  }

  /** Text outside pre blocks: its whitespace collapsed to one space, pipes escaped in a table cell. */
  inline(text: string): void {
    const collapsed = text.replace(/\s+/g, " ");
    const body = collapsed.trim();
    if (body === "") {
      if (collapsed !== "") this.#pendingSpace = true;
      return;
    }
    if (collapsed.startsWith(" ")) this.#pendingSpace = true;
    this.marker(this.#nesting.cells > 0 ? body.replace(/\|/g, "\\|") : body);
    this.#pendingSpace = collapsed.endsWith(" ");
  }

  /** Writes `text` after any pending break or space (an opening marker or a word). */
  marker(text: string): void {
    if (this.#pendingBreak > 0) this.flushBreak(this.#nesting.lists.length);
    else if (this.#pendingSpace && !this.#atLineStart) this.#output.push(" ");
    this.#pendingSpace = false;
    this.write(text);
  }

  /** Writes `text` as it is, with no break or space before it. */
  write(text: string): void {
    if (text === "") return;
    this.#output.push(text);
    this.#atLineStart = false;
  }

  /** Asks for a line break (1) or a blank line (2) before the next output. */
  break(lines: 1 | 2): void {
    // Inside a table cell a line break would end the row, and the first output needs no gap.
    if (this.#nesting.cells > 0) this.#pendingSpace = true;
    else if (this.#output.chars > 0) this.#pendingBreak = Math.max(this.#pendingBreak, lines);
  }

  /** Writes a pending break now, with the quote prefix and `indent` list levels; what follows starts a line. */
  flushBreak(indent: number): void {
    if (this.#pendingBreak > 0) {
      const quotes = Math.min(this.#nesting.quotes, MAX_SHOWN_NESTING);
      this.#output.push(`${"\n".repeat(this.#pendingBreak)}${"> ".repeat(quotes)}${"  ".repeat(Math.min(indent, MAX_SHOWN_NESTING))}`);
      this.#pendingBreak = 0;
    }
    this.#pendingSpace = false;
    this.#atLineStart = true;
  }

  /** Treats the next output as the start of a line (after a list item's or a cell's marker): no space before it. */
  startLine(): void {
    this.#atLineStart = true;
  }

  /** Forgets a pending space (before a cell's closing pipe). */
  dropSpace(): void {
    this.#pendingSpace = false;
  }
}
