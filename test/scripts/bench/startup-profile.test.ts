/**
 * scripts/bench/startup-profile.ts: "Active" is the sampled time less idle, as `wrangler check
 * startup` prints it, and a Worker's start-up and first request are profiled in a fresh workerd
 * whose entry imports the Worker only when asked.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CpuProfile, profileStartup, summarizeProfile } from "../../../scripts/bench/startup-profile.ts";

const frame = (id: number, functionName: string) => ({ id, callFrame: { functionName } });

describe("summarizeProfile", () => {
  it("counts every sample's time but idle as active, garbage collection included", () => {
    const profile: CpuProfile = {
      nodes: [frame(1, "(root)"), frame(2, "(idle)"), frame(3, "(garbage collector)"), frame(4, "parse")],
      startTime: 0,
      endTime: 10_000,
      samples: [4, 2, 3, 4, 2],
      timeDeltas: [1_000, 4_000, 500, 1_500, 3_000],
    };
    expect(summarizeProfile(profile)).toEqual({ activeMs: 3, garbageCollectionMs: 0.5, sampleCount: 5 });
  });

  it("reads a profile without samples as no time", () => {
    expect(summarizeProfile({ nodes: [frame(1, "(root)")], startTime: 0, endTime: 0 })).toEqual({ activeMs: 0, garbageCollectionMs: 0, sampleCount: 0 });
  });
});

describe("profileStartup", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("imports the Worker inside the profiled request, then serves its first request from the same isolate", async () => {
    dir = await mkdtemp(join(tmpdir(), "startup-profile-"));
    const main = join(dir, "worker.mjs");
    // Module state proves the first request ran in the isolate the start-up profile imported into.
    await writeFile(main, 'const startedAt = "loaded";\nexport default { fetch: async (request) => new Response(`${startedAt} ${await request.text()}`) };\n');
    const seen: string[] = [];
    const run = await profileStartup(
      { modules: [{ type: "ESModule", path: main }] },
      { path: "/call", body: "hi", headers: {}, check: (status, body) => void seen.push(`${status} ${body}`) },
    );
    expect(seen).toEqual(["200 loaded hi"]);
    expect(run.startup.activeMs).toBeGreaterThanOrEqual(0);
    expect(run.profile.nodes.length).toBeGreaterThan(0);
    if (process.platform === "linux") expect(run.workerdCpuMs.startup).toBeGreaterThan(0);
  }, 60_000);

  it("fails when the Worker's module throws while it loads, rather than report a fast start", async () => {
    dir = await mkdtemp(join(tmpdir(), "startup-profile-"));
    const main = join(dir, "worker.mjs");
    await writeFile(main, 'throw new Error("bad config");\nexport default {};\n');
    await expect(profileStartup({ modules: [{ type: "ESModule", path: main }] }, { path: "/", body: "", headers: {}, check: () => undefined })).rejects.toThrow(
      /importing worker\.mjs failed: 500/,
    );
  }, 60_000);
});
