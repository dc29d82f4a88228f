/**
 * src/audit/shorten-long-strings.ts: a string past LONG_STRING_CHARS keeps its start, its length
 * and a SHA-256 of the whole, from node:crypto loaded at first use (not imported at start-up).
 */
import { describe, expect, it } from "vitest";
import { LONG_STRING_CHARS, shortenLongString } from "../../src/audit/shorten-long-strings.ts";
import { sha256Hex } from "../../src/crypto/sha256.ts";

describe("shortenLongString", () => {
  it("keeps a string of LONG_STRING_CHARS as it is", () => {
    const text = "a".repeat(LONG_STRING_CHARS);
    expect(shortenLongString(text)).toBe(text);
  });

  it("replaces a longer one by its start, its length and the SHA-256 of the whole", () => {
    const text = `${"b".repeat(300)}${"c".repeat(LONG_STRING_CHARS)}`;
    expect(shortenLongString(text)).toBe(`${"b".repeat(256)}… [${text.length} characters in all, sha256 ${sha256Hex(text)}]`);
  });
});
