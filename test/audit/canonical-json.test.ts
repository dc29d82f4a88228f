import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/audit/canonical-json.ts";
import { capJson } from "../../src/audit/cap-json.ts";

describe("sha256Hex", () => {
  // FIPS 180-4 example vectors, so a change in how the digest is written out cannot go unseen.
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"],
  ])("digests %j as the standard says", async (text, hex) => {
    expect(await sha256Hex(text)).toBe(hex);
  });
});

describe("capJson", () => {
  it("keeps JSON that fits, however it is made of 1- to 4-byte characters", () => {
    for (const json of ['"a"', '"é"', '"€"', '"😀"', `"${"€".repeat(30)}"`]) expect(capJson(json, 100)).toEqual({ text: json, truncated: false });
  });

  it("replaces JSON whose UTF-8 is over the cap, though its length in characters is not", () => {
    const json = `"${"€".repeat(40)}"`;
    expect(json.length).toBeLessThan(100);
    const capped = capJson(json, 100);
    expect(capped.truncated).toBe(true);
    expect(new TextEncoder().encode(capped.text).length).toBeLessThanOrEqual(100);
    expect(JSON.parse(capped.text)).toMatchObject({ $truncated: true, bytes: 122 });
  });
});
