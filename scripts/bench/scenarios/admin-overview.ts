/**
 * The admin console's overview page (issue 17) with 100,000 audit records in its window: the
 * page's CPU per request, and how much of it is SQLite's. Miniflare runs D1 (SQLite) in the same
 * workerd process as the Worker, so the process's CPU per page is the Worker's and D1's together;
 * the overview's reads alone (ADMIN_OVERVIEW_SQL_PATH: the same statements, no page) are measured
 * the same way. The two are close (they were within /proc/<pid>/stat's 10 ms ticks): the Worker's
 * own share is small beside SQLite's, so it is measured apart: the page rendered RENDERS times more
 * from one read (ADMIN_OVERVIEW_RENDER_PATH), divided out. That share (plus the sign-in check's
 * KV and D1 lookups) is what Cloudflare bills as the Worker's CPU: there D1 runs elsewhere.
 */

import { ADMIN_COOKIE_PATH, ADMIN_OVERVIEW_PATH, ADMIN_OVERVIEW_RENDER_PATH, ADMIN_OVERVIEW_SQL_PATH, AUDIT_SEED_PATH } from "../requests.ts";
import type { BenchContext, Scenario } from "../scenario.ts";
import { cpuMs } from "../server-cpu.ts";
import { median } from "../stats.ts";

/** Issue 17: records in the window the page is measured with. */
const RECORDS = 100_000;
/** Issue 17's target for the page, in Worker CPU. */
const MAX_WORKER_CPU_MS = 50;
const REQUESTS_PER_ROUND = 3;
/**
 * A page costs about a second of SQLite per 100,000 records, so rounds are few: the check is on
 * the Worker's share, a few ms, and the full bench must end within 4 minutes (issue 16).
 */
const MAX_ROUNDS = 2;
const DAY_MS = 86_400_000;
/** Extra renders per measurement of the rendering alone. */
const RENDERS = 50;

/** CPU of one render of the page, from the overview read once: (one read + 1 + RENDERS renders) less (one read + 1 render). */
async function renderCpuMs(ctx: BenchContext): Promise<number> {
  const cost = async (times: number) => {
    const before = cpuMs(ctx.serverPid);
    const { status, body } = await ctx.client.send({ method: "GET", path: `${ADMIN_OVERVIEW_RENDER_PATH}?times=${times}` });
    if (status !== 200) throw new Error(`bench: ${ADMIN_OVERVIEW_RENDER_PATH} answered ${status}: ${body.slice(0, 300)}`);
    return cpuMs(ctx.serverPid) - before;
  };
  return ((await cost(1 + RENDERS)) - (await cost(1))) / RENDERS;
}

async function cpuPerRequest(ctx: BenchContext, path: string, headers: Record<string, string>, check: (body: string) => void): Promise<number> {
  const before = cpuMs(ctx.serverPid);
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
    const { status, body } = await ctx.client.send({ method: "GET", path, headers });
    if (status !== 200) throw new Error(`bench: ${path} answered ${status}: ${body.slice(0, 300)}`);
    check(body);
  }
  return (cpuMs(ctx.serverPid) - before) / REQUESTS_PER_ROUND;
}

export const adminOverview: Scenario = {
  id: "admin-overview",
  title: "The admin overview page over a day holding 100,000 audit records: workerd CPU per page, SQLite's share apart",
  async run(ctx) {
    // Spread over the last day, ending a minute ago: all inside the page's day window.
    const until = Date.now() - 60_000;
    const window = `since=${until - DAY_MS + 3_600_000}&until=${until}`;
    const seeded = await ctx.client.send({ method: "POST", path: `${AUDIT_SEED_PATH}?rows=${RECORDS}&${window}` });
    if (seeded.status !== 200) throw new Error(`bench: ${AUDIT_SEED_PATH} answered ${seeded.status}: ${seeded.body.slice(0, 300)}`);
    const signedIn = await ctx.client.send({ method: "POST", path: ADMIN_COOKIE_PATH });
    if (signedIn.status !== 200) throw new Error(`bench: ${ADMIN_COOKIE_PATH} answered ${signedIn.status}: ${signedIn.body.slice(0, 300)}`);
    const { cookie } = JSON.parse(signedIn.body) as { cookie: string };

    let calls = 0;
    const checkPage = (body: string) => {
      calls = Number(/data-figure="calls">(\d+)</.exec(body)?.[1] ?? Number.NaN);
      if (!(calls >= RECORDS) || !body.includes("<svg")) throw new Error(`bench: the overview shows ${calls} calls (expected at least ${RECORDS}) or no chart`);
    };
    const checkSql = (body: string) => {
      if (!((JSON.parse(body) as { calls: number }).calls >= RECORDS)) throw new Error(`bench: the overview's reads counted too few calls: ${body}`);
    };
    // Warm-up: JIT, D1's statement cache, the key lookup.
    checkPage((await ctx.client.send({ method: "GET", path: ADMIN_OVERVIEW_PATH, headers: { cookie } })).body);
    checkSql((await ctx.client.send({ method: "GET", path: ADMIN_OVERVIEW_SQL_PATH })).body);
    await renderCpuMs(ctx);
    const rounds = Math.min(MAX_ROUNDS, ctx.settings.rounds);
    const page: number[] = [];
    const sql: number[] = [];
    const render: number[] = [];
    for (let round = 0; round < rounds; round++) {
      page.push(await cpuPerRequest(ctx, ADMIN_OVERVIEW_PATH, { cookie }, checkPage));
      sql.push(await cpuPerRequest(ctx, ADMIN_OVERVIEW_SQL_PATH, {}, checkSql));
      render.push(await renderCpuMs(ctx));
    }
    const unseeded = await ctx.client.send({ method: "DELETE", path: `${AUDIT_SEED_PATH}?${window}` });
    if (unseeded.status !== 200 || (JSON.parse(unseeded.body) as { rows: number }).rows !== RECORDS)
      throw new Error(`bench: DELETE ${AUDIT_SEED_PATH} answered ${unseeded.status}: ${unseeded.body.slice(0, 300)}`);
    // The page less its reads, floored at the rendering alone (a difference of two noisy readings).
    const rest = page.map((p, i) => p - (sql[i] ?? Number.NaN));
    const workerMs = Math.max(median(render), median(rest));
    return {
      method: `${RECORDS} records seeded over the last day (40 tools, 1 in 20 failing), ${calls} in the page's window; ${rounds} rounds of ${REQUESTS_PER_ROUND} sequential requests each, medians; CPU of the workerd process (Worker and Miniflare's D1) from /proc`,
      columns: [{ key: "cpuMs", header: "workerd CPU ms/request", digits: 2 }],
      rows: [
        { label: "GET /admin?window=day (sign-in check, reads, page with charts)", values: { cpuMs: median(page) }, perRound: { cpuMs: page } },
        { label: "the overview's reads alone (D1's SQLite, a few dozen rows back)", values: { cpuMs: median(sql) }, perRound: { cpuMs: sql } },
        { label: "page less reads (difference of two readings)", values: { cpuMs: median(rest) }, perRound: { cpuMs: rest } },
        { label: `rendering the page alone (SVG charts included), over ${RENDERS} renders`, values: { cpuMs: median(render) }, perRound: { cpuMs: render } },
      ],
      checks: [
        {
          label: `overview page, Worker CPU with ${RECORDS} records in the window (D1's SQLite excluded)`,
          target: `< ${MAX_WORKER_CPU_MS} ms`,
          actual: `${workerMs.toFixed(1)} ms`,
          pass: workerMs < MAX_WORKER_CPU_MS,
        },
      ],
    };
  },
};
