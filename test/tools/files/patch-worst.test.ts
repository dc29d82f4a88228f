/**
 * patch's worst inputs (tools/patch.ts) end with a bounded, correct answer: a replace_all over
 * 300,000 matches, a result over the file cap refused before it is built, a 1 MiB old_string
 * that fails against 10 MiB, and more matches than one patch replaces. Finishing at all within
 * the test's timeout is the proof of boundedness; no wall-clock figure is asserted.
 */
import { describe, expect, it } from "vitest";
import { runWorst, storedText, worstInput } from "../../support/worst-inputs.ts";

describe("patch at its worst inputs", () => {
  it("replaces all 300,000 single-character matches and stores the right text", async () => {
    const { outcome, keyId } = await runWorst("patch", worstInput("patch", "replace_all of 'a' with 'ab'"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect(JSON.parse(outcome.content)).toMatchObject({ success: true, strategy: "exact", replacements: 300_000 });
    expect(await storedText(keyId, "worst/patch-many.txt")).toBe("ab".repeat(300_000));
  });

  it("refuses a replace_all whose result would pass 10 MiB and leaves the file as it was", async () => {
    const { outcome, keyId } = await runWorst("patch", worstInput("patch", "replace_all whose result would pass"));
    expect(outcome.errorCode, outcome.content).toBe("INVALID_ARGUMENTS");
    expect(outcome.envelope).toMatchObject({ issues: [expect.objectContaining({ path: "new_string", message: expect.stringContaining("12.0 MB") })] });
    expect((await storedText(keyId, "worst/patch-cap.txt"))?.length).toBe(900_000);
  });

  // Writing the 10 MiB file and reading it back take seconds of their own on a busy machine.
  it("answers a 1 MiB old_string that matches nowhere in 10 MiB with a structured miss", { timeout: 60_000 }, async () => {
    const { outcome } = await runWorst("patch", worstInput("patch", "a 1 MiB old_string"));
    expect(outcome.status).toBe("error");
    expect(outcome.content).toContain("Could not find a match for old_string in worst/patch-big.txt");
  });

  it("refuses more matches than one patch replaces, naming the cap", { timeout: 60_000 }, async () => {
    const { outcome, keyId } = await runWorst("patch", worstInput("patch", "a million and one"));
    expect(outcome.status).toBe("error");
    expect(outcome.content).toContain("more than 1,000,000 times");
    expect((await storedText(keyId, "worst/patch-full.txt"))?.startsWith("aaaa")).toBe(true);
  });
});
