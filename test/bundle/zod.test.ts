import { describe, expect, it } from "vitest";
import zDefault, { z } from "zod";
import * as zodItself from "../../node_modules/zod/v4/classic/external.js";

// Kept in step with src/bundle/zod-api.ts by hand: adding a name there is a decision about the bundle.
const LEFT_OUT = ["locales", "core", "compile", "withParser", "INVALID", "ZodCompileAsyncError", "ZodCompileUnsupportedError"];

describe("the Worker's zod (src/bundle/zod.ts)", () => {
  it("is what `zod` resolves to here, as in the Worker build", () => {
    expect(() => z.locales.en).toThrow(/left out of the Worker bundle/);
    expect(zDefault).toBe(z);
  });

  it("offers every other member of zod's classic API, as zod's own value", () => {
    const names = Object.keys(zodItself).filter((name) => !LEFT_OUT.includes(name));
    expect(names.length).toBeGreaterThan(100);
    for (const name of names) expect([name, (z as Record<string, unknown>)[name]]).toEqual([name, (zodItself as Record<string, unknown>)[name]]);
    expect(Object.keys(z).sort()).toEqual(Object.keys(zodItself).sort());
  });

  it("refuses every left-out member loudly, naming the file to change", () => {
    // biome-ignore lint/plugin/no-double-cast: reaches the members the bundle's type leaves out on purpose, to prove they throw
    const zz = z as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of LEFT_OUT) {
      expect(() => zz[name]?.()).toThrow(`zod's ${name} is left out of the Worker bundle (src/bundle/zod-api.ts)`);
    }
    expect(() => z.core.$ZodType).toThrow(/zod's core is left out/);
  });

  it("still answers in English", () => {
    const result = z.object({ n: z.number().min(2) }).safeParse({ n: 1 });
    expect(result.error?.issues[0]?.message).toBe("Too small: expected number to be >=2");
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
  });

  it("is the zod @hono/zod-openapi extends, so .openapi() works on its schemas", () => {
    expect(typeof z.string().openapi).toBe("function");
  });
});
