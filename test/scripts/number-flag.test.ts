/** scripts/number-flag.ts: the bench's and the simulation's numeric flags. */
import { describe, expect, it } from "vitest";
import { numberFlag } from "../../scripts/number-flag.ts";

describe("numberFlag", () => {
  it("reads --name=<number>, and is undefined when the flag is absent", () => {
    expect(numberFlag("rounds", ["node", "bench.ts", "--rounds=7", "--round-ms=2500"])).toBe(7);
    expect(numberFlag("round-ms", ["--rounds=7", "--round-ms=2500"])).toBe(2500);
    expect(numberFlag("rounds", ["--round-ms=2500"])).toBeUndefined();
  });

  it("refuses anything but a positive number, naming the flag", () => {
    expect(() => numberFlag("rate", ["--rate=fast"])).toThrow('--rate takes a positive number, not "fast"');
    expect(() => numberFlag("rate", ["--rate=0"])).toThrow("--rate takes a positive number");
  });
});
