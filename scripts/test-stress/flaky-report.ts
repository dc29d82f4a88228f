/**
 * Reading vitest's JSON reports (`--reporter=json`) for `npm run test:stress`: which files to run
 * again, and which tests failed under contention and passed on the second try (flaky) or failed
 * both times.
 */

/** The part of vitest's JSON report read here (its Jest-compatible shape). */
export interface VitestReport {
  testResults: {
    /** The test file's absolute path. */
    name: string;
    status: string;
    /** Why the file failed as a whole (an import that threw, a hook that failed). */
    message?: string;
    assertionResults: { fullName: string; status: string }[];
  }[];
}

export interface StressVerdict {
  /** `file > test` of each test that failed the first time and passed the second. */
  flaky: string[];
  /** `file > test` (or `file` alone, when it failed as a whole) that failed both times. */
  failedTwice: string[];
}

/** The files with a failed test, or that failed as a whole. */
export function failedFiles(report: VitestReport): string[] {
  return report.testResults
    .filter((file) => file.status === "failed" || file.assertionResults.some((test) => test.status === "failed"))
    .map((file) => file.name);
}

/**
 * Compares the first run with the second run of its failed files. A test missing from the
 * second report (its file did not load) counts as failed again: nothing showed it passing.
 */
export function stressVerdict(first: VitestReport, second: VitestReport, label: (file: string) => string = (file) => file): StressVerdict {
  const passedAgain = new Set<string>();
  const failedAgain = new Set<string>();
  for (const file of second.testResults) {
    for (const test of file.assertionResults) (test.status === "passed" ? passedAgain : failedAgain).add(`${file.name}\0${test.fullName}`);
  }
  const verdict: StressVerdict = { flaky: [], failedTwice: [] };
  for (const file of first.testResults) {
    const failed = file.assertionResults.filter((test) => test.status === "failed");
    if (failed.length === 0 && file.status === "failed") {
      const again = second.testResults.find((other) => other.name === file.name);
      (again?.status === "passed" ? verdict.flaky : verdict.failedTwice).push(label(file.name));
      continue;
    }
    for (const test of failed) {
      const key = `${file.name}\0${test.fullName}`;
      const name = `${label(file.name)} > ${test.fullName}`;
      (passedAgain.has(key) && !failedAgain.has(key) ? verdict.flaky : verdict.failedTwice).push(name);
    }
  }
  return verdict;
}
