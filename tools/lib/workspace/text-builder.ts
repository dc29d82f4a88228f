/**
 * A long text built from many small pieces (a patch's lines), joined a group at a time: holding
 * millions of tiny strings until one final join costs more memory than a Worker has, and one
 * join of millions of pieces is a long synchronous stretch.
 */
import type { Pacer } from "./pacer.ts";

/** Pieces joined into one string at a time. */
const GROUP = 4096;

export class TextBuilder {
  readonly #pacer: Pacer;
  readonly #groups: string[] = [];
  #pieces: string[] = [];
  #work = 0;
  #last = "";

  constructor(pacer: Pacer) {
    this.#pacer = pacer;
  }

  /** Appends `piece`, yielding once a slice of work is spent. */
  async push(piece: string): Promise<void> {
    if (piece === "") return;
    this.#pieces.push(piece);
    this.#last = piece;
    this.#work += piece.length + 1;
    if (this.#pieces.length < GROUP) return;
    this.#groups.push(this.#pieces.join(""));
    this.#pieces = [];
    await this.#pacer.step(this.#work);
    this.#work = 0;
  }

  /** Whether the text so far ends with `suffix` (checked on the last piece, which holds it for a line ending). */
  endsWith(suffix: string): boolean {
    return this.#last.endsWith(suffix);
  }

  /** Whether nothing has been appended. */
  get empty(): boolean {
    return this.#last === "";
  }

  /** The whole text. */
  text(): string {
    this.#groups.push(this.#pieces.join(""));
    this.#pieces = [];
    return this.#groups.join("");
  }
}
