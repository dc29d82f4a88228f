/** scripts/test-stress/flaky-report.ts: which tests `npm run test:stress` calls flaky, from vitest's JSON reports. */
import { describe, expect, it } from "vitest";
import { failedFiles, stressVerdict, type VitestReport } from "../../scripts/test-stress/flaky-report.ts";

const file = (name: string, tests: Record<string, string>, status = Object.values(tests).includes("failed") ? "failed" : "passed") => ({
  name,
  status,
  assertionResults: Object.entries(tests).map(([fullName, testStatus]) => ({ fullName, status: testStatus })),
});

describe("test:stress's reading of vitest's reports", () => {
  it("runs again only the files with a failure, including a file that failed as a whole", () => {
    const report: VitestReport = {
      testResults: [file("/a.test.ts", { one: "passed" }), file("/b.test.ts", { two: "failed" }), file("/c.test.ts", {}, "failed")],
    };
    expect(failedFiles(report)).toEqual(["/b.test.ts", "/c.test.ts"]);
  });

  it("calls a test that failed and then passed flaky, and one that failed twice a failure", () => {
    const first: VitestReport = { testResults: [file("/a.test.ts", { flaky: "failed", broken: "failed", fine: "passed" })] };
    const second: VitestReport = { testResults: [file("/a.test.ts", { flaky: "passed", broken: "failed", fine: "passed" })] };
    expect(stressVerdict(first, second, (name) => name.slice(1))).toEqual({ flaky: ["a.test.ts > flaky"], failedTwice: ["a.test.ts > broken"] });
  });

  it("counts a test missing from the second report as failed again, and judges a file that failed as a whole by its second run", () => {
    const first: VitestReport = { testResults: [file("/a.test.ts", { gone: "failed" }), file("/b.test.ts", {}, "failed"), file("/c.test.ts", {}, "failed")] };
    const second: VitestReport = { testResults: [file("/a.test.ts", {}, "failed"), file("/b.test.ts", { ok: "passed" }), file("/c.test.ts", {}, "failed")] };
    expect(stressVerdict(first, second)).toEqual({ flaky: ["/b.test.ts"], failedTwice: ["/a.test.ts > gone", "/c.test.ts"] });
  });
});
