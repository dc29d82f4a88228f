/**
 * The Markdown of one page as it is written: parts collected, then handed to the tidy
 * (markdown-tidy.ts) a group at a time, so the page's end has little left to join. The last part
 * can be taken back while it waits, which is how an empty link drops its "[".
 */
import { MarkdownTidy } from "./markdown-tidy.ts";

/** Parts, or characters, written before they are joined and handed to the tidy. */
const HANDOVER_PARTS = 4096;
const HANDOVER_CHARS = 64 * 1024;

/** One page's Markdown output, with a cap on the characters written. */
export class MarkdownOutput {
  /** Output not yet handed to the tidy: kept apart only while a link might still turn out empty. */
  readonly #parts: string[] = [];
  /** Parts handed to the tidy so far, so `last` counts from the page's first part. */
  #tidied = 0;
  /** Characters in #parts. */
  #waiting = 0;
  readonly #tidy = new MarkdownTidy();
  #chars = 0;
  readonly #maxChars: number;
  readonly #full: () => void;

  /** `full` is called on each write once more than `maxChars` characters have been written. */
  constructor(maxChars: number, full: () => void) {
    this.#maxChars = maxChars;
    this.#full = full;
  }

  /** Characters written so far, a part taken back included. */
  get chars(): number {
    return this.#chars;
  }

  /** The index of the last part written, counted from the page's first part. */
  get last(): number {
    return this.#tidied + this.#parts.length - 1;
  }

  push(text: string): void {
    this.#parts.push(text);
    this.#chars += text.length;
    this.#waiting += text.length;
    if (this.#chars > this.#maxChars) this.#full();
  }

  /** Drops the last part, if it has not been handed to the tidy yet; the counts keep it. */
  takeBack(): void {
    this.#parts.pop();
  }

  /** Hands the parts written so far to the tidy: `all` of them, or once enough have gathered. */
  handOver(all: boolean): void {
    if (this.#parts.length === 0 || (!all && this.#parts.length < HANDOVER_PARTS && this.#waiting < HANDOVER_CHARS)) return;
    this.#tidy.write(this.#parts.join(""));
    this.#tidied += this.#parts.length;
    this.#parts.length = 0;
    this.#waiting = 0;
  }

  /** The whole page's Markdown, tidied; the output takes no more parts after it. */
  end(): string {
    this.handOver(true);
    return this.#tidy.end();
  }
}
