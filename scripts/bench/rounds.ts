/**
 * Measures several requests against each other in the same run: each is primed and warmed up,
 * then they take turns, round after round, so drift on a noisy machine (other processes, CPU
 * frequency) hits all of them alike. Compare them round by round (paired), then take medians.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { drainAuditRows } from "./audit-rows.ts";
import { COLLECT_GARBAGE_PATH } from "./collect-garbage-route.ts";
import type { LoadClient, RequestSpec } from "./load.ts";
import { paired, pairedSpread, type Spread } from "./paired-runs.ts";
import { type BenchContext, type Reference, type Row, versusKey } from "./scenario.ts";
import { cpuMs } from "./server-cpu.ts";
import { median, percentile } from "./stats.ts";

export interface Contender {
  label: string;
  request: RequestSpec;
  /** Where to send it: another Worker's socket (an MCP peer); the bench Worker when absent. */
  client?: LoadClient;
  /**
   * Every request leaves one audit record (the full app). The queue hands records to its
   * consumer up to max_batch_timeout (1 s) later, so nearly all of a 1 s round's audit writes
   * would run during the next contender's round and be counted as its cost. Set, the round is
   * followed by an untimed wait until its records are in D1, and the CPU spent meanwhile (the
   * consumer, D1, the count requests) is counted in this contender's CPU per request.
   */
  audited?: boolean;
}

/** Per-round figures of one contender, index i being round i. */
export interface ContenderRounds {
  label: string;
  rps: number[];
  p50Ms: number[];
  p99Ms: number[];
  /** workerd's CPU time per request (all its threads), NaN where it cannot be read. */
  serverCpuUs: number[];
  /** Size of one answer body, from the priming request. */
  bodyBytes: number;
  /** Every request it sent: the priming one, the warm-up and the timed rounds. */
  sent: number;
  /** An audited contender's records that reached D1 for each round, over the round's requests (1 when none is lost). */
  auditRowsPerCall: number[];
  /** workerd's CPU per request after the round (and its audit wait) until it was idle, counted in serverCpuUs. */
  trailingCpuUs: number[];
  /** The full collection after the round less a collection of nothing, per request: reported, not in serverCpuUs (RoundPlan). */
  collectionCpuUs: number[];
}

/** How long an audited round's records may take to reach D1 before the bench gives up on them. */
const AUDIT_DRAIN_TIMEOUT_MS = 20_000;

/**
 * Waits until the audit records of `requests` requests made from `since` (epoch ms) on are in
 * D1; returns how many are, or throws if they do not all arrive in time (records lost).
 */
async function awaitAuditRows(client: LoadClient, label: string, since: number, requests: number): Promise<number> {
  const { rows } = await drainAuditRows(client, requests, AUDIT_DRAIN_TIMEOUT_MS, since);
  if (rows < requests) throw new Error(`bench: ${label}: ${rows} audit rows for ${requests} requests after ${AUDIT_DRAIN_TIMEOUT_MS / 1000} s`);
  return rows;
}

/**
 * Every round is followed by a settle (settleCpu): a wait until workerd is idle, whose CPU is
 * counted in the round, so work a round leaves behind (waitUntil tasks, a queue's consumer, the
 * broker, D1) is charged to it and not to the next contender's round. Then, uncounted, by a full
 * collection of the contender's isolate (collect-garbage-route.ts), so every round starts from a
 * collected heap there and V8's next major collection does not land in whichever round is running.
 * Miniflare's D1, KV and queue simulators run in isolates the route cannot reach, and are not
 * collected. What the collections leave running (0-3 ms of CPU after them, measured on
 * 2026-12-05, against about 1 s of CPU in a round) falls in the next round.
 *
 * Why uncounted: what a forced collection costs grows with the isolate's live heap, not only with
 * the garbage the round made. The bare peer with 400,000 objects kept alive paid 9.0 us/req in
 * it where it paid 2.1 without them, for the same requests, so charging it every round would
 * charge the bench Worker (500 synthetic tools, several apps) for its size at a rate V8 never
 * collects at. A second collection straight after the first (which finds no garbage) is
 * subtracted from it, and the difference is reported per request (collectionCpuUs), not counted.
 */
export interface RoundPlan {
  concurrency: number;
  rounds: number;
  roundMs: number;
  warmupMs: number;
}

/** Length of one idle probe; workerd idle (timers, the inspector off) uses well under 1% of a core. */
const SETTLE_WINDOW_MS = 50;
/** A window under this much CPU is idle: 2% of a core, far below one request's share of a round. */
const SETTLE_IDLE_CPU_MS = 1;
/**
 * Idle windows in a row that end the wait (200 ms): shorter than the queue's 1 s batch timeout,
 * which is why an audited arm waits for its records to reach D1 before its settle begins.
 */
const SETTLE_IDLE_WINDOWS = 4;
/** The wait gives up here (counting what it saw): the queue's 1 s batch timeout, twice over. */
const SETTLE_TIMEOUT_MS = 2_000;

/**
 * Waits until workerd has been idle for SETTLE_IDLE_WINDOWS windows in a row (or
 * SETTLE_TIMEOUT_MS passes) and returns the CPU ms it used until the idle stretch began.
 */
export async function settleCpu(pid: number | undefined): Promise<number> {
  const started = performance.now();
  const first = cpuMs(pid);
  if (Number.isNaN(first)) return Number.NaN;
  let last = first;
  let busyUntil = first;
  let idle = 0;
  while (idle < SETTLE_IDLE_WINDOWS && performance.now() - started < SETTLE_TIMEOUT_MS) {
    await sleep(SETTLE_WINDOW_MS);
    const now = cpuMs(pid);
    if (now - last < SETTLE_IDLE_CPU_MS) idle += 1;
    else {
      idle = 0;
      busyUntil = now;
    }
    last = now;
  }
  return busyUntil - first;
}

/**
 * workerd's CPU ms for a full collection in the isolate `client` reaches (collect-garbage-route.ts),
 * its request included.
 */
async function collectionCpuMs(ctx: BenchContext, client: LoadClient, label: string): Promise<number> {
  const before = cpuMs(ctx.serverPid);
  const answer = await client.send({ method: "POST", path: COLLECT_GARBAGE_PATH });
  if (answer.status !== 204) throw new Error(`bench: ${label}: collecting garbage answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return cpuMs(ctx.serverPid) - before;
}

/**
 * Runs `plan.rounds` alternating rounds of every contender, each settled, then collected (RoundPlan);
 * throws if one does not answer 200.
 */
export async function alternatingRounds(ctx: BenchContext, contenders: readonly Contender[], plan: RoundPlan): Promise<ContenderRounds[]> {
  const results: ContenderRounds[] = [];
  for (const { label, request, client = ctx.client, audited } of contenders) {
    const since = Date.now();
    // One lone request first: it must succeed, and it lets a bare route capture its body
    // before concurrent requests arrive (workerd warns about promises shared across requests).
    const primed = await client.send(request);
    if (primed.status !== 200) throw new Error(`bench: ${label} (${request.method} ${request.path}) answered ${primed.status}: ${primed.body.slice(0, 500)}`);
    const warmup = await client.round(request, { concurrency: plan.concurrency, durationMs: plan.warmupMs });
    // The queue may deliver the warm-up's records over a second later, past the next warm-ups.
    if (audited === true) await awaitAuditRows(ctx.client, `${label} (warm-up)`, since, 1 + warmup.requests);
    results.push({
      label,
      rps: [],
      p50Ms: [],
      p99Ms: [],
      serverCpuUs: [],
      bodyBytes: Buffer.byteLength(primed.body),
      sent: 1 + warmup.requests,
      auditRowsPerCall: [],
      trailingCpuUs: [],
      collectionCpuUs: [],
    });
  }
  // Each contender's first round starts from an idle workerd too, not from the last warm-up's tail.
  await settleCpu(ctx.serverPid);
  // And from a collected heap in every isolate the rounds measure.
  for (const client of new Set(contenders.map((contender) => contender.client ?? ctx.client))) await collectionCpuMs(ctx, client, "before the rounds");
  for (let round = 0; round < plan.rounds; round++) {
    // Reverse the order every other round so no contender always follows the same one.
    const order = round % 2 === 0 ? contenders.map((_, i) => i) : contenders.map((_, i) => contenders.length - 1 - i);
    for (const i of order) {
      const contender = contenders[i];
      const figures = results[i];
      if (contender === undefined || figures === undefined) continue;
      const since = Date.now();
      const client = contender.client ?? ctx.client;
      const cpuBefore = cpuMs(ctx.serverPid);
      const result = await client.round(contender.request, { concurrency: plan.concurrency, durationMs: plan.roundMs });
      if (contender.audited === true)
        figures.auditRowsPerCall[round] = (await awaitAuditRows(ctx.client, contender.label, since, result.requests)) / result.requests;
      // Read before the settle's idle stretch, which is no round's work; its busy part is added.
      const cpuAfter = cpuMs(ctx.serverPid);
      const trailing = await settleCpu(ctx.serverPid);
      const roundsGarbage = await collectionCpuMs(ctx, client, contender.label);
      const collection = roundsGarbage - (await collectionCpuMs(ctx, client, contender.label));
      figures.trailingCpuUs[round] = (trailing * 1000) / result.requests;
      figures.collectionCpuUs[round] = (collection * 1000) / result.requests;
      figures.serverCpuUs[round] = ((cpuAfter + trailing - cpuBefore) * 1000) / result.requests;
      figures.sent += result.requests;
      figures.rps[round] = (result.requests * 1000) / result.elapsedMs;
      figures.p50Ms[round] = percentile(result.latenciesMs, 50);
      figures.p99Ms[round] = percentile(result.latenciesMs, 99);
    }
  }
  return results;
}

/** The per-round figures of a contender, for a Row's `perRound`. */
export function perRound(figures: ContenderRounds): Record<string, number[]> {
  return {
    rps: figures.rps,
    p50Ms: figures.p50Ms,
    p99Ms: figures.p99Ms,
    serverCpuUs: figures.serverCpuUs,
    trailingCpuUs: figures.trailingCpuUs,
    collectionCpuUs: figures.collectionCpuUs,
  };
}

/**
 * A contender and its reference as the rows of versusColumns(reference): `ratio` is the median of
 * the per-round req/s ratios; `cpuRatio` the per-round reference CPU per request over the
 * contender's (1/x, so both read "higher is faster"), with its spread: the figure a target rides
 * on (issue 33), since CPU per request moves far less than req/s when other processes compete.
 * The reference's row has 1 in both.
 */
export function versusRows(
  contender: ContenderRounds,
  reference: ContenderRounds,
  name: Exclude<Reference, "bare">,
): { ratio: number; cpuRatio: Spread; rows: Row[] } {
  const ratio = median(paired(contender.rps, reference.rps, (c, r) => c / r));
  const cpuRatio = pairedSpread(reference.serverCpuUs, contender.serverCpuUs, (r, c) => r / c);
  const row = (figures: ContenderRounds): Row => ({
    label: figures.label,
    values: versusValues(figures, reference, name),
    note: `req/s per round ${figures.rps.map((r) => r.toFixed(0)).join(" ")}`,
    perRound: perRound(figures),
  });
  return { ratio, cpuRatio, rows: [row(contender), row(reference)] };
}

/**
 * The values of versusColumns(name) for `figures` against `reference`: medians over rounds, and
 * the medians of the per-round req/s ratio and CPU ratio (the reference's CPU over this one's).
 */
export function versusValues(figures: ContenderRounds, reference: ContenderRounds, name: Exclude<Reference, "bare">): Record<string, number> {
  return {
    rps: median(figures.rps),
    p50: median(figures.p50Ms),
    p99: median(figures.p99Ms),
    [versusKey(name)]: median(paired(figures.rps, reference.rps, (f, r) => f / r)),
    cpuUs: median(figures.serverCpuUs),
    [versusKey(name, "cpu")]: median(paired(reference.serverCpuUs, figures.serverCpuUs, (r, f) => r / f)),
  };
}
