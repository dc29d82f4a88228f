/**
 * Test files that get a workerd of their own (vitest project `worker-isolated`) instead of the
 * shared one (project `worker`, whose storage test/setup.ts empties before each file). These
 * count every key's audit rows in a window, and in the shared workerd the audit records of the
 * file before them can still be on their way (group commit, then the queue's 1 s batch) when
 * they start, and land in their count.
 */
import type { TestProjectInlineConfiguration } from "vitest/config";

export const FRESH_ISOLATE_FILES = ["test/admin/overview.test.ts", "test/admin/tools-pages.test.ts"];

/**
 * The projects with FRESH_ISOLATE_FILES moved out of the project named `worker` into a copy of it
 * named `worker-isolated` that isolates each file (same plugins, bindings and setup).
 */
export function withFreshIsolates(projects: TestProjectInlineConfiguration[]): TestProjectInlineConfiguration[] {
  return projects.flatMap((project) => {
    const test = project.test;
    if (test?.name !== "worker") return [project];
    const shared = { ...project, test: { ...test, exclude: [...(test.exclude ?? []), ...FRESH_ISOLATE_FILES] } };
    const isolated = { ...project, test: { ...test, name: "worker-isolated", isolate: true, include: FRESH_ISOLATE_FILES } };
    return [shared, isolated];
  });
}
