import { describe, expect, it } from "vitest";
import { capJson } from "../../src/audit/cap-json.ts";

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
