/**
 * scripts/bench/run-scenarios.ts, report.ts and clean-up.ts: a run that a scenario's throw or
 * the watchdog interrupts still reports, and writes, every scenario that finished.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanUp } from "../../../scripts/bench/clean-up.ts";
import { LoadClient } from "../../../scripts/bench/load.ts";
import { type BenchResults, formatRun, writeResults } from "../../../scripts/bench/report.ts";
import { runScenarios, type ScenariosRun } from "../../../scripts/bench/run-scenarios.ts";
import type { BenchContext, BenchSettings, Scenario } from "../../../scripts/bench/scenario.ts";

const SETTINGS: BenchSettings = { rounds: 1, roundMs: 50, warmupMs: 0, concurrency: 2 };

let server: Server;
let ctx: BenchContext;
let dir: string;

beforeEach(async () => {
  server = createServer((request, response) => {
    if (request.url === "/hang") return;
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new LoadClient(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), SETTINGS.concurrency);
  ctx = {
    root: process.cwd(),
    settings: SETTINGS,
    client,
    origin: "http://127.0.0.1",
    agentKey: "unused",
    adminToken: "unused",
    quick: true,
    serverPid: undefined,
  };
  dir = await mkdtemp(join(tmpdir(), "bench-report-"));
});

afterEach(async () => {
  await ctx.client.close(100);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** A scenario that measures a real round against the loopback server. */
function measuring(id: string): Scenario {
  return {
    id,
    title: `${id} title`,
    async run(c) {
      const round = await c.client.round({ method: "GET", path: "/" }, { concurrency: c.settings.concurrency, durationMs: c.settings.roundMs });
      return {
        method: "one round",
        columns: [{ key: "requests", header: "requests", digits: 0 }],
        rows: [{ label: `${id} row`, values: { requests: round.requests } }],
        checks: [{ label: `${id} answered`, target: "> 0", actual: String(round.requests), pass: round.requests > 0 }],
      };
    },
  };
}

const throwing: Scenario = {
  id: "throws",
  title: "throws title",
  async run(c) {
    const { status } = await c.client.send({ method: "GET", path: "/" });
    throw new Error(`bench: throws answered ${status} and gave up`);
  },
};

/** Waits on a request the server never answers: the wedged workerd of issue 16. */
const hanging: Scenario = {
  id: "hangs",
  title: "hangs title",
  async run(c) {
    await c.client.send({ method: "GET", path: "/hang" });
    throw new Error("unreachable: /hang never answers");
  },
};

function results(run: ScenariosRun): BenchResults {
  return {
    startedAt: new Date(0).toISOString(),
    seconds: 1,
    complete: run.stopped === undefined && run.failures.length === 0,
    ...(run.stopped === undefined ? {} : { stopped: run.stopped }),
    failures: run.failures,
    environment: {},
    settings: SETTINGS,
    scenarios: run.outcomes,
  };
}

describe("runScenarios", () => {
  it("keeps running after a scenario throws, and reports the finished ones and the failure", async () => {
    const run = await runScenarios([measuring("first"), throwing, measuring("last")], ctx, new AbortController().signal);
    expect(run.outcomes.map((o) => o.id)).toEqual(["first", "last"]);
    expect(run.failures).toHaveLength(1);
    expect(run.failures[0]?.id).toBe("throws");
    expect(run.failures[0]?.error).toContain("throws answered 200 and gave up");
    expect(run.stopped).toBeUndefined();

    const text = formatRun(results(run), "header");
    expect(text).toContain("1. first title");
    expect(text).toContain("2. last title");
    expect(text).toContain("FAILED  throws (throws title)");
    expect(text).toMatch(/^ {2}met +first answered/m);
    expect(text).toMatch(/^ {2}met +last answered/m);
  });

  it("when the watchdog fires mid-scenario, returns what finished and names the scenario it stopped", async () => {
    const watchdog = AbortSignal.timeout(300);
    const t0 = performance.now();
    const run = await runScenarios([measuring("first"), hanging, measuring("never")], ctx, watchdog);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(run.outcomes.map((o) => o.id)).toEqual(["first"]);
    expect(run.failures).toEqual([]);
    expect(run.stopped?.scenario).toBe("hangs");

    // What bench.ts does next: write and print the partial results, then clean up.
    const path = join(dir, "results.json");
    writeResults(path, results(run));
    const written = JSON.parse(await readFile(path, "utf8")) as BenchResults;
    expect(written.complete).toBe(false);
    expect(written.stopped?.scenario).toBe("hangs");
    expect(written.scenarios.map((s) => s.id)).toEqual(["first"]);
    expect(written.scenarios[0]?.rows[0]?.values.requests).toBeGreaterThan(0);
    const text = formatRun(written, "header");
    expect(text).toContain("1. first title");
    expect(text).toContain("INCOMPLETE");
    expect(text).toContain("stopped at hangs");
    expect(text).not.toContain("never");

    // The hung request is still in flight: closing twice, as a watchdog and a finally both
    // might, neither throws nor waits on it.
    expect(
      await cleanUp([
        { label: "close", run: () => ctx.client.close(100) },
        { label: "close again", run: () => ctx.client.close(100) },
      ]),
    ).toEqual([]);
  });

  it("names the next scenario when the signal was already aborted", async () => {
    const stop = new AbortController();
    stop.abort(new Error("interrupted (SIGINT)"));
    const run = await runScenarios([measuring("first")], ctx, stop.signal);
    expect(run).toEqual({ outcomes: [], failures: [], stopped: { reason: "interrupted (SIGINT)", scenario: "first" } });
  });
});

describe("cleanUp", () => {
  it("runs every step even when one throws or overruns, and returns the problems instead of throwing", async () => {
    const ran: string[] = [];
    const problems = await cleanUp(
      [
        {
          label: "throws",
          run: () => {
            ran.push("throws");
            throw new Error("The client is destroyed");
          },
        },
        {
          label: "rejects",
          run: async () => {
            ran.push("rejects");
            await Promise.reject(new Error("dispose failed"));
          },
        },
        {
          label: "overruns",
          run: () => {
            ran.push("overruns");
            return new Promise<void>(() => undefined);
          },
        },
        {
          label: "last",
          run: () => {
            ran.push("last");
          },
        },
      ],
      100,
    );
    expect(ran).toEqual(["throws", "rejects", "overruns", "last"]);
    expect(problems).toEqual(["throws: The client is destroyed", "rejects: dispose failed", "overruns: still running after 0.1 s; left behind"]);
  });
});
