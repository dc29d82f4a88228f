import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/audit/canonical-json.ts";
import { capJson } from "../../src/audit/cap-json.ts";

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops what JSON drops, as JSON.stringify would place it", () => {
    const shared = { z: 1, y: [2, undefined, () => 3] };
    const value = { b: shared, a: shared, "10": Number.NaN, "2": new Date(0), f: () => 1, u: undefined, n: 5n };
    expect(canonicalJson(value)).toBe('{"10":null,"2":"1970-01-01T00:00:00.000Z","a":{"y":[2,null,null],"z":1},"b":{"y":[2,null,null],"z":1},"n":"5"}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
  });

  it("writes a value inside itself as [Circular], including a toJSON that returns itself", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    const selfish = {
      toJSON() {
        return this;
      },
    };
    expect(canonicalJson(cycle)).toBe('{"a":1,"self":"[Circular]"}');
    expect(canonicalJson({ s: selfish })).toBe('{"s":"[Circular]"}');
  });

  it("writes a value nested 100,000 deep in one pass, without overflowing the stack", () => {
    const depth = 100_000;
    let deep: unknown = "x".repeat(1000);
    for (let i = 0; i < depth; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    const text = canonicalJson(deep);
    // Built level by level, this text would be copied once per level: 100,000 x 700 KB.
    expect(text).toBe(`${'{"k":['.repeat(depth / 2)}"${"x".repeat(1000)}"${"]}".repeat(depth / 2)}`);
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
