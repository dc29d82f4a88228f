/**
 * What authentication, the tool access policy, rate limits and audit cost a single call: POST
 * /v1/tool-calls with one echo call through the full app (`createApp()`, as shipped, with an
 * agent key made through POST /v1/keys: D1 lookup behind the 10 s key cache, then the access
 * policy on every call) against the core app (core pipeline, none of those stages).
 *
 * Issue 33 splits the full app's cost in two, each in workerd CPU per request, paired run by run
 * (medians with their spread), each from its own alternation:
 * - the serving path: the full app with its audit records sent to a queue no consumer reads
 *   (FULL_SERVING_PIPELINE), so the round pays authentication, policy, the RateLimiter Durable
 *   Object, building the records, the group commit and the send, but not the consumer, which in
 *   production runs as its own invocation. Target: at least 0.9x core (core's CPU over its).
 *   It alternates with core and the full app less its audit, and no audited arm: the audited
 *   arm's consumer runs in the same isolate and its D1 in the same process, so what it leaves
 *   (pending work, garbage to collect) could land in the round after it.
 * - the audit all in: the full app with the real queue, each round followed by an untimed wait
 *   until its records are in D1 and that wait's CPU (broker, consumer, D1) counted, less the full
 *   app without its audit stage, in a second alternation of those two (and core). Reported here
 *   beside the serving path; its target (40 us a call) is audit-cost's, which measures the same
 *   work stage by stage without the bench's row counts.
 * Both alternations settle (then collect, uncounted) after every round (rounds.ts): a round's own
 * trailing work is counted in it, and the next round starts from an idle workerd. At the end every audited call must have
 * its row.
 */
import { drainAuditRows, settledAuditRows } from "../audit-rows.ts";
import type { RequestSpec } from "../load.ts";
import { formatSpread, paired, pairedSpread, targetCheck } from "../paired-runs.ts";
import { CORE_PIPELINE, ECHO_CALL_BODY, FULL_NO_AUDIT_PIPELINE, FULL_PIPELINE, FULL_SERVING_PIPELINE, PIPELINE_HEADER, TOOL_CALLS_PATH } from "../requests.ts";
import { alternatingRounds, type Contender, type ContenderRounds, perRound, versusValues } from "../rounds.ts";
import { type BenchContext, type Row, type Scenario, versusColumns } from "../scenario.ts";
import { median } from "../stats.ts";

/** Issue 33: the serving path keeps at least 0.9x of core, in CPU per request. */
const MIN_SERVING_RATIO = 0.9;
/** How long the queue may take, after the last round, to deliver every record. */
const DRAIN_TIMEOUT_MS = 20_000;

/** Sends `request` once; throws unless it answered 200 with every call ok (not rate limited, say). */
async function assertCallsOk(ctx: BenchContext, label: string, request: RequestSpec): Promise<void> {
  const { status, body } = await ctx.client.send(request);
  const results = status === 200 ? (JSON.parse(body) as { results?: { status?: string }[] }).results : undefined;
  if (results === undefined || results.some((r) => r.status !== "ok")) throw new Error(`bench: ${label} answered ${status}: ${body.slice(0, 500)}`);
}

/** Three contenders of one alternation, or a bench defect. */
function three(figures: readonly ContenderRounds[]): [ContenderRounds, ContenderRounds, ContenderRounds] {
  const [a, b, c] = figures;
  if (a === undefined || b === undefined || c === undefined) throw new Error("bench: full-overhead lost a contender");
  return [a, b, c];
}

export const fullOverhead: Scenario = {
  id: "full-overhead",
  title: "POST /v1/tool-calls, one echo call, full app (auth, policy, rate limits, audit) vs the core pipeline: serving path and audit apart",
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    const plan = { concurrency, rounds, roundMs, warmupMs };
    const call = (pipeline: string, authorization?: string): RequestSpec => ({
      method: "POST",
      path: TOOL_CALLS_PATH,
      body: ECHO_CALL_BODY,
      headers: { [PIPELINE_HEADER]: pipeline, ...(authorization === undefined ? {} : { authorization }) },
    });
    const agent = `Bearer ${ctx.agentKey}`;
    const noAuditArm: Contender = { label: "full less audit (agent key)", request: call(FULL_NO_AUDIT_PIPELINE, agent) };
    const coreArm: Contender = { label: "core", request: call(CORE_PIPELINE) };
    const servingArm: Contender = { label: "full, serving path (agent key; audit sent, no consumer)", request: call(FULL_SERVING_PIPELINE, agent) };
    const auditedArm: Contender = { label: "full, audit all in (agent key; consumer and D1 counted)", request: call(FULL_PIPELINE, agent), audited: true };

    const rowsBefore = await settledAuditRows(ctx.client);
    for (const { label, request } of [servingArm, auditedArm, noAuditArm, coreArm]) await assertCallsOk(ctx, label, request);
    // Requests outside the rounds that the full app audits into D1.
    let auditedChecks = 1;

    // The target's alternation first, so no audited round of this scenario comes before it.
    const [serving, noAudit, core] = three(await alternatingRounds(ctx, [servingArm, noAuditArm, coreArm], plan));
    const [full, auditNoAudit, auditCore] = three(await alternatingRounds(ctx, [auditedArm, noAuditArm, coreArm], plan));
    await assertCallsOk(ctx, `${auditedArm.label} (after the rounds)`, auditedArm.request);
    auditedChecks += 1;

    // Every audited request carried one call, hence one audit record; the sink queue's are dropped.
    const expected = rowsBefore + full.sent + auditedChecks;
    const drained = await drainAuditRows(ctx.client, expected, DRAIN_TIMEOUT_MS);
    const written = drained.rows - rowsBefore;
    const calls = expected - rowsBefore;

    const servingRatio = pairedSpread(core.serverCpuUs, serving.serverCpuUs, (c, s) => c / s);
    const auditUs = pairedSpread(full.serverCpuUs, auditNoAudit.serverCpuUs, (f, n) => f - n);
    const row = (arm: ContenderRounds, reference: ContenderRounds, label = arm.label): Row => ({
      label,
      values: {
        ...versusValues(arm, reference, "core"),
        // Only the audited arm counts rows.
        ...(arm.auditRowsPerCall.length > 0 ? { auditVsCalls: median(arm.auditRowsPerCall) } : {}),
      },
      note: `CPU us/req per round ${arm.serverCpuUs.map((r) => r.toFixed(0)).join(" ")}, of which after the round ${arm.trailingCpuUs.map((r) => r.toFixed(1)).join(" ")}`,
      perRound: { ...perRound(arm), auditRowsPerCall: arm.auditRowsPerCall },
    });
    const rows = [
      row(serving, core),
      row(noAudit, core),
      row(core, core),
      row(full, auditCore, `${full.label} [2nd alternation]`),
      row(auditNoAudit, auditCore, `${auditNoAudit.label} [2nd alternation]`),
      row(auditCore, auditCore, "core [2nd alternation]"),
      {
        label: "audit all in, per call (full, audit all in - full less audit) [2nd alternation]",
        values: { cpuUs: auditUs.median },
        note: `${formatSpread(auditUs, "us")}; includes the bench's row counts while it waits; target in audit-cost`,
        perRound: { cpuUs: paired(full.serverCpuUs, auditNoAudit.serverCpuUs, (f, n) => f - n) },
      },
    ];
    return {
      method: `${PIPELINE_HEADER} picks the app; ${concurrency} in flight; two alternations, each of ${rounds} rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up: the serving path, full less audit and core (the target's), then the audited full app, full less audit and core; after every round, untimed, the bench waits until workerd is idle and counts that CPU in the round ("after the round"); x core = median of per-round req/s ratios against its alternation's core; CPU x core = median of per-round core CPU/req over this one's (the serving path's is the target's figure); the serving path sends its records to a queue no consumer reads; after each audited round the bench first waits until the round's records are in D1, counted in the round too (queue broker, consumer, D1); audit rows x calls = rows in D1 for the round's calls; ${written} rows for ${calls} audited calls in all`,
      columns: [...versusColumns("core"), { key: "auditVsCalls", header: "audit rows x calls", digits: 2 }],
      rows,
      checks: [
        targetCheck("single call, workerd CPU, full app's serving path (agent key, consumer excluded) vs core", servingRatio, {
          at: "least",
          value: MIN_SERVING_RATIO,
          unit: "x",
        }),
        {
          label: `audit rows in D1 for the full app's calls, queue drained within ${DRAIN_TIMEOUT_MS / 1000} s`,
          target: "== calls",
          actual: `${written}/${calls}`,
          pass: written === calls,
        },
      ],
    };
  },
};
