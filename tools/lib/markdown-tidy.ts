/**
 * The last touch on converted Markdown, done as the text is written rather than over the whole
 * page at the end: spaces and tabs at line ends dropped, at most one blank line in a row, none
 * before the first line or after the last.
 *
 * Streaming, because the page's text at once is too much for one synchronous step: joining a
 * million small pieces and splitting the result into lines took over a second in V8, and the
 * regex /[ \t]+\n/g retries every position of a run of spaces that no newline ends, which is
 * quadratic in the run (a <pre> of spaces).
 */

const NEWLINE = 10;
const SPACE = 32;
const TAB = 9;

const isBlank = (code: number) => code === SPACE || code === TAB;

/** Tidies text written to it piece by piece, in time linear in the text. */
export class MarkdownTidy {
  /** Tidied output, joined a group at a time so no single join is large. */
  readonly #chunks: string[] = [];
  #pieces: string[] = [];
  #started = false;
  /** Newlines since the last text. */
  #newlines = 0;
  /** Spaces and tabs since the last text or newline: kept as indentation if text follows, dropped if a newline does. */
  #held = "";

  /** Adds the next piece of the text; a line may continue across pieces. */
  write(text: string): void {
    let i = 0;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === NEWLINE) {
        this.#held = "";
        this.#newlines += 1;
        i += 1;
        continue;
      }
      if (isBlank(code)) {
        let end = i + 1;
        while (end < text.length && isBlank(text.charCodeAt(end))) end += 1;
        this.#held += text.slice(i, end);
        i = end;
        continue;
      }
      let lineEnd = text.indexOf("\n", i);
      if (lineEnd === -1) lineEnd = text.length;
      let end = lineEnd;
      while (end > i && isBlank(text.charCodeAt(end - 1))) end -= 1;
      this.#line(text.slice(i, end));
      // Trailing blanks wait: the next piece may go on with text on the same line.
      this.#held = text.slice(end, lineEnd);
      i = lineEnd;
    }
    if (this.#pieces.length >= 4096) this.#group();
  }

  /** The tidied text; the tidy takes no more writes. */
  end(): string {
    this.#group();
    return this.#chunks.join("");
  }

  #line(text: string): void {
    if (this.#started) {
      if (this.#newlines > 0) this.#pieces.push(this.#newlines > 1 ? "\n\n" : "\n");
      if (this.#held !== "") this.#pieces.push(this.#held);
    }
    this.#pieces.push(text);
    this.#started = true;
    this.#newlines = 0;
    this.#held = "";
  }

  #group(): void {
    if (this.#pieces.length === 0) return;
    this.#chunks.push(this.#pieces.join(""));
    this.#pieces = [];
  }
}
