/**
 * What the audit log costs per call, stage by stage, in workerd CPU, against one core-pipeline
 * request: building a record; sending records through the real AuditBuffer and queue, with the
 * real consumer writing them to D1; and D1's insert alone. Miniflare runs the queue broker and
 * D1 (SQLite) in the same workerd process as the Worker, on the same thread, so everything the
 * audit does after the response is paid out of the same CPU that serves requests here; on
 * Cloudflare the broker and D1 run elsewhere. This explains full-overhead's figure; it has no
 * target of its own.
 *
 * The bench Worker's AUDIT_PATH_PATH route does the work (worker.ts). CPU is read from /proc
 * around each stage; the queue stage ends when every record is a row (the row counts polled
 * every 200 ms until then are in its figure), the others when the route answers.
 */
import { auditRows, drainAuditRows, settledAuditRows } from "../audit-rows.ts";
import { AUDIT_PATH_PATH, AUDIT_STAGE_PARAM, CORE_PIPELINE, ECHO_CALL_BODY, PIPELINE_HEADER, TOOL_CALLS_PATH, type AuditStage } from "../requests.ts";
import type { BenchContext, Scenario } from "../scenario.ts";
import { cpuMs } from "../server-cpu.ts";
import { median } from "../stats.ts";

/** Records per stage and round: about as many as a full round of the full app audits. */
const RECORDS = 6_000;
/** Records per flush: what the group commit gathers under the bench's load (about 57 measured). */
const QUEUE_GROUP = 60;
/** Rows per D1 batch for the insert alone: what the consumer writes at once under that load. */
const D1_BATCH = 1_000;
const DRAIN_TIMEOUT_MS = 30_000;

async function stageCpuUs(ctx: BenchContext, stage: AuditStage): Promise<number> {
  const group = stage === "d1" ? D1_BATCH : QUEUE_GROUP;
  const rowsBefore = stage === "build" ? 0 : await settledAuditRows(ctx.client);
  const before = cpuMs(ctx.serverPid);
  const { status, body } = await ctx.client.send({ method: "POST", path: `${AUDIT_PATH_PATH}?records=${RECORDS}&group=${group}&${AUDIT_STAGE_PARAM}=${stage}` });
  if (status !== 200) throw new Error(`bench: ${AUDIT_PATH_PATH} (${stage}) answered ${status}: ${body.slice(0, 300)}`);
  // The d1 stage's rows are committed when it answers; the queue's once the consumer wrote them.
  // The window closes there, so the row counts that check the result are not counted as cost.
  if (stage === "queue") {
    const drained = await drainAuditRows(ctx.client, rowsBefore + RECORDS, DRAIN_TIMEOUT_MS);
    if (drained.rows < rowsBefore + RECORDS) throw new Error(`bench: audit-cost ${stage}: ${drained.rows - rowsBefore} of ${RECORDS} rows after ${DRAIN_TIMEOUT_MS / 1000} s`);
  }
  const cpuUs = ((cpuMs(ctx.serverPid) - before) * 1000) / RECORDS;
  if (stage !== "build") {
    // Written exactly once: the consumer must not add more rows than records sent.
    const settled = await settledAuditRows(ctx.client);
    if (settled !== rowsBefore + RECORDS) throw new Error(`bench: audit-cost ${stage}: ${settled - rowsBefore} rows for ${RECORDS} records`);
  }
  return cpuUs;
}

async function coreCpuUs(ctx: BenchContext): Promise<number> {
  const request = { method: "POST" as const, path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers: { [PIPELINE_HEADER]: CORE_PIPELINE } };
  const before = cpuMs(ctx.serverPid);
  const result = await ctx.client.round(request, { concurrency: ctx.settings.concurrency, durationMs: ctx.settings.roundMs });
  return ((cpuMs(ctx.serverPid) - before) * 1000) / result.requests;
}

export const auditCost: Scenario = {
  id: "audit-cost",
  title: "The audit log's cost per call, stage by stage, in workerd CPU (Miniflare runs the queue and D1 on the Worker's thread)",
  async run(ctx) {
    const rounds = Math.max(2, ctx.settings.rounds - 2);
    const cpu: Record<AuditStage | "core", number[]> = { build: [], queue: [], d1: [], core: [] };
    // Warm-up: JIT, the consumer, D1's statement cache.
    await auditRows(ctx.client);
    await stageCpuUs(ctx, "queue");
    await coreCpuUs(ctx);
    for (let round = 0; round < rounds; round++) {
      cpu.core.push(await coreCpuUs(ctx));
      for (const stage of ["build", "queue", "d1"] as const) cpu[stage].push(await stageCpuUs(ctx, stage));
    }
    const build = median(cpu.build);
    // The queue and d1 stages build their records too; their own cost is the difference.
    const sendAndWrite = median(cpu.queue.map((q, i) => q - (cpu.build[i] ?? build)));
    const insertAlone = median(cpu.d1.map((d, i) => d - (cpu.build[i] ?? build)));
    const core = median(cpu.core);
    const audit = build + sendAndWrite;
    const row = (label: string, us: number, perRound: number[]) => ({ label, values: { cpuUs: us, xCore: us / core }, perRound: { cpuUs: perRound } });
    return {
      method: `${RECORDS} echo-call records per stage, ${rounds} rounds, medians; queue: ${QUEUE_GROUP} records per flush (the group commit's size under load), consumer as wrangler.toml sets it; D1 alone: ${D1_BATCH}-row batches; core: one ${ctx.settings.roundMs / 1000} s round of ${ctx.settings.concurrency} in flight. Ceiling = core / (core + audit): the best full-app/core throughput ratio this audit path allows here, even if authentication, policy and rate limits cost nothing`,
      columns: [
        { key: "cpuUs", header: "workerd CPU us", digits: 1 },
        { key: "xCore", header: "x core request", digits: 2 },
      ],
      rows: [
        row("build one record (redact, canonical JSON, SHA-256, id)", build, cpu.build),
        row("send it (queue) and write it (consumer, D1), per record", sendAndWrite, cpu.queue),
        row("of which D1's insert alone, per row", insertAlone, cpu.d1),
        row("the whole audit of one call", audit, cpu.queue),
        row("one core-pipeline request (reference)", core, cpu.core),
        { label: `ceiling on full app / core throughput: ${(core / (core + audit)).toFixed(2)}x`, values: {} },
      ],
      checks: [],
    };
  },
};
