/** When the browser test runs, skips or fails: skipping is for a developer's machine only. */
import { describe, expect, it } from "vitest";
import { chromiumAvailability } from "./support/chromium.ts";

const MISSING = "/nonexistent/chromium";

describe("chromiumAvailability", () => {
  it("runs when the browser is there", () => {
    expect(chromiumAvailability(process.execPath, { CI: "true" })).toEqual({ run: true });
  });

  it("skips, saying how to install it, when the browser is missing outside CI", () => {
    const availability = chromiumAvailability(MISSING, {});
    expect(availability).toEqual({ run: false, message: expect.stringContaining("apt-get install -y --no-install-recommends chromium") });
  });

  it("fails under CI when the browser is missing, instead of skipping", () => {
    expect(() => chromiumAvailability(MISSING, { CI: "true" })).toThrow(`CI is set and ${MISSING} is missing`);
    expect(chromiumAvailability(MISSING, { CI: "" })).toMatchObject({ run: false });
  });
});
