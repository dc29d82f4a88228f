/**
 * tools/lib/workspace/line-window.ts: read_file's window agrees with LineIndex, which keeps every
 * line's start, on every window of texts with empty, CRLF and unterminated lines, and on the
 * worst input's shape (a long run of empty lines) it keeps only the window.
 */
import { describe, expect, it } from "vitest";
import { LineIndex } from "../../../../tools/lib/workspace/line-index.ts";
import { lineWindow } from "../../../../tools/lib/workspace/line-window.ts";
import { Pacer, SLICE_UNITS } from "../../../../tools/lib/workspace/pacer.ts";

const pacer = () => new Pacer("read_file", Date.now() + 60_000);

describe("lineWindow", () => {
  it("counts lines and places every window's starts and ends as LineIndex does", async () => {
    for (const text of ["", "one", "one\n", "\n", "\n\n\n", "a\r\nbb\r\n\r\nccc", "first\n\nthird\nfourth\n"]) {
      const index = await LineIndex.build(text, pacer());
      for (let first = 1; first <= index.count + 1; first++) {
        for (let last = first; last <= index.count + 1; last++) {
          const window = await lineWindow(text, first, last, pacer());
          expect(window.count, JSON.stringify(text)).toBe(index.count);
          for (let n = first; n <= Math.min(last, index.count); n++) {
            expect([window.start(n), window.end(n)], `${JSON.stringify(text)} line ${n}`).toEqual([index.start(n - 1), index.end(n - 1)]);
          }
        }
      }
    }
  });

  it("finds the last window of a million empty lines, yielding as it scans", async () => {
    const text = "\n".repeat(1_000_000);
    let yields = 0;
    const counting = new (class extends Pacer {
      override async pause() {
        yields += 1;
        await super.pause();
      }
    })("read_file", Date.now() + 60_000);
    const window = await lineWindow(text, 999_000, 1_000_001, counting);
    expect(window.count).toBe(1_000_001);
    expect([window.start(999_000), window.end(999_000)]).toEqual([998_999, 998_999]);
    expect([window.start(1_000_001), window.end(1_000_001)]).toEqual([1_000_000, 1_000_000]);
    // It kept the window's starts alone: a line before it is not there to ask for.
    expect(() => window.start(1)).toThrow(RangeError);
    // About two units a line (the character and its newline): a yield per slice of them.
    expect(yields).toBeGreaterThanOrEqual(Math.floor(1_999_999 / SLICE_UNITS));
  });
});
