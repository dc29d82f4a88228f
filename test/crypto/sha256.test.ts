import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/crypto/sha256.ts";

const encoder = new TextEncoder();

async function webCryptoHex(data: Uint8Array): Promise<string> {
  return Buffer.from(await crypto.subtle.digest("SHA-256", data)).toString("hex");
}

describe("sha256Hex", () => {
  // FIPS 180-4 / NIST example vectors: one block, two blocks, and the empty message.
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"],
  ])("digests %j as the standard says", (text, hex) => {
    expect(sha256Hex(text)).toBe(hex);
  });

  it("digests a million 'a's as the standard says (many blocks)", () => {
    expect(sha256Hex("a".repeat(1_000_000))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  });

  // Padding changes shape at 55/56 bytes (the length no longer fits the last block) and at 64.
  it("agrees with WebCrypto on every length around the padding boundaries", async () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff);
      expect(sha256Hex(bytes), `length ${length}`).toBe(await webCryptoHex(bytes));
    }
  });

  it("agrees with WebCrypto on arbitrary text, hashed as UTF-8 (lone surrogates as U+FFFD, like TextEncoder)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 300 }), async (text) => {
        expect(sha256Hex(text)).toBe(await webCryptoHex(encoder.encode(text)));
      }),
      { numRuns: 300 },
    );
  });

  it("agrees with WebCrypto on arbitrary bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 1_000 }), async (bytes) => {
        expect(sha256Hex(bytes)).toBe(await webCryptoHex(bytes));
      }),
      { numRuns: 200 },
    );
  });

  it("does not change its input", () => {
    const bytes = Uint8Array.from([1, 2, 3]);
    sha256Hex(bytes);
    expect([...bytes]).toEqual([1, 2, 3]);
  });
});
