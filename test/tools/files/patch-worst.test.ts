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

describe("patch's V4A mode at its worst inputs", () => {
  it("applies 20,000 hunks to a 20,000-line file, each found where the one before ended", { timeout: 60_000 }, async () => {
    const { outcome, keyId } = await runWorst("patch", worstInput("patch", "a V4A patch of 20,000 hunks"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect(JSON.parse(outcome.content)).toMatchObject({ success: true, files_modified: ["worst/v4a-hunks.txt"], diff_truncated: true });
    expect(await storedText(keyId, "worst/v4a-hunks.txt")).toBe(Array.from({ length: 20_000 }, (_, i) => `LINE ${i}\n`).join(""));
  });

  it("ends a patch whose huge first hunk fits nowhere with a structured miss, the file untouched", { timeout: 60_000 }, async () => {
    const { outcome, keyId } = await runWorst("patch", worstInput("patch", "a V4A patch whose first of 5,000 hunks"));
    expect(outcome.status).toBe("error");
    expect(JSON.parse(outcome.content)).toMatchObject({
      path: "worst/v4a-context.txt",
      patch_line: 2,
      error: expect.stringContaining("hunk 1 (line 2 of the patch)"),
    });
    expect((await storedText(keyId, "worst/v4a-context.txt"))?.length).toBe(8 * 1_310_000);
  });

  it("adds a file of five million lines from a 10 MiB patch", { timeout: 60_000 }, async () => {
    const { outcome, keyId } = await runWorst("patch", worstInput("patch", "a 10 MiB V4A patch"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect(JSON.parse(outcome.content)).toMatchObject({ files_created: ["worst/v4a-add.txt"], diff_truncated: true });
    expect((await storedText(keyId, "worst/v4a-add.txt"))?.length).toBe(Math.floor((10 * 1024 * 1024 - 64) / 2));
  });
});
