/**
 * GitHub's REST description (13 MB, ~1,200 operations) converted inside workerd, where runtime
 * sources convert: fetched as a source's spec URL would be (from the outbound stand-in, which
 * reads it from disk), loaded and converted by the code the Worker runs. test/scripts/
 * openapi-github-spec.test.ts checks the conversion in detail and times it in Node.
 */
import { describe, expect, it } from "vitest";
import { withCheckedExample } from "../../src/openapi-sources/checked-example.ts";
import { convertSpec } from "../../src/openapi-sources/convert-spec.ts";
import { loadSpec } from "../../src/openapi-sources/load-spec.ts";
import { SPEC_FILES_HOST } from "../support/test-env.ts";

describe("GitHub's REST description in workerd", () => {
  it("loads and converts every operation", async () => {
    const text = await (await fetch(`http://${SPEC_FILES_HOST}/github.json`)).text();
    expect(text.length).toBeGreaterThan(12_000_000);
    const started = Date.now();
    const loaded = await loadSpec(text);
    if (!loaded.ok) throw new Error(loaded.reason);
    const converted = await convertSpec(loaded.doc, { source: "github" });
    if (!converted.ok) throw new Error(converted.reason);
    // workerd's clock moves only across I/O (conversion pauses between slices), so this is approximate.
    console.log(`GitHub spec in workerd: ${converted.spec.operations.length} operations, load and convert ~${Date.now() - started} ms`);
    expect(converted.spec.operations.length).toBeGreaterThan(1_100);
    expect(converted.spec.problems).toHaveLength(1);
    // Examples are made for nearly every operation; the check the generator and the hint run
    // (checked-example.ts) drops only the spec's own wrong ones, seven on 2026-12-05.
    const withExample = converted.spec.operations.filter((op) => op.example !== undefined);
    const checked = (await Promise.all(withExample.map(withCheckedExample))).filter((op) => op.example !== undefined);
    console.log(`GitHub spec: ${withExample.length} of ${converted.spec.operations.length} operations have example arguments, ${checked.length} valid`);
    expect(withExample.length - checked.length).toBeLessThanOrEqual(10);
    expect(withExample.length).toBeGreaterThan(converted.spec.operations.length * 0.9);
  });

  it("converts a few included operations of it", async () => {
    const text = await (await fetch(`http://${SPEC_FILES_HOST}/github.json`)).text();
    const loaded = await loadSpec(text);
    if (!loaded.ok) throw new Error(loaded.reason);
    const converted = await convertSpec(loaded.doc, { source: "github", include: ["issues/*"], exclude: ["tag:reactions"] });
    if (!converted.ok) throw new Error(converted.reason);
    expect(converted.spec.operations.every((op) => op.operationId?.startsWith("issues/"))).toBe(true);
    expect(converted.spec.operations.map((op) => op.name)).toContain("github__issues_create");
  });
});
