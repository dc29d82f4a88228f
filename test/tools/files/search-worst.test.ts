/**
 * search_files' worst inputs (tools/search-files.ts) end with a bounded, correct answer: a glob
 * of repeated `**\/` over 1,000 files, a nested-quantifier pattern over 5 million lines, and
 * long lines under a glob of many alternatives. Finishing within the test's timeout is the proof.
 */
import { describe, expect, it } from "vitest";
import { globToPattern } from "../../../tools/lib/workspace/glob.ts";
import { runWorst, worstInput } from "../../support/worst-inputs.ts";

describe("search_files at its worst inputs", () => {
  it("lists every one of 1,000 .ts files for a glob of ten '**/' segments", { timeout: 120_000 }, async () => {
    const { outcome } = await runWorst("search_files", worstInput("search_files", "a glob of ten"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect(JSON.parse(outcome.content)).toMatchObject({ total_count: 1000, truncated: true });
  });

  it("counts a 10 MiB file's lines with a nested quantifier, or says where its budget stopped it", { timeout: 60_000 }, async () => {
    const { outcome } = await runWorst("search_files", worstInput("search_files", "a nested-quantifier"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    const body = JSON.parse(outcome.content) as { total_count: number; truncated: boolean; limit_reason?: string };
    if (body.truncated) expect(body.limit_reason).toMatch(/^(search_timeout|work_budget)/);
    else expect(body.total_count).toBe(5 * 1024 * 1024);
  });

  it("finds the match at the end of each long line under a glob of many alternatives", { timeout: 60_000 }, async () => {
    const { outcome } = await runWorst("search_files", worstInput("search_files", "a pattern matching near the end"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect(JSON.parse(outcome.content)).toMatchObject({ total_count: 10, truncated: false });
  });
});

describe("globToPattern", () => {
  it("compiles a run of '**/' segments as one, so a long run stays a small program", () => {
    expect(globToPattern(`${"**/".repeat(10)}*.ts`)).toBe(globToPattern("**/*.ts"));
  });
});
