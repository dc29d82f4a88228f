/** How the page words ages and time left. */
import { describe, expect, it } from "vitest";
import { formatInstant, formatSpan } from "../../src/approvals-page/format-time.ts";

describe("formatSpan", () => {
  it.each([
    [-5_000, "0 s"],
    [999, "0 s"],
    [59_999, "59 s"],
    [60_000, "1 min"],
    [185_000, "3 min 5 s"],
    [3_600_000, "1 h"],
    [7_800_000, "2 h 10 min"],
    [49 * 3_600_000, "2 d"],
  ])("words %i ms as %s", (ms, words) => {
    expect(formatSpan(ms)).toBe(words);
  });
});

describe("formatInstant", () => {
  it("writes UTC to the second", () => {
    expect(formatInstant(Date.parse("2026-05-01T12:34:56.789Z"))).toBe("2026-05-01 12:34:56 UTC");
  });
});
