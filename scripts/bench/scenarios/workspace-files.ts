/**
 * The files toolset over a workspace of 1,000 files in the bench Worker's local R2 (issue 13):
 * a read_file window, a content search_files across every file, and a name search, each through
 * the full app as the bench's agent key, beside a plain echo call through the same app as the
 * reference. The workspace is written first through write_file itself, in batches. The issue
 * sets no target for these; the check is that a search over all 1,000 files completes inside
 * its budgets (no limit_reason), since a search that stops early would make its figure
 * meaningless.
 */
import type { LoadClient, RequestSpec } from "../load.ts";
import { ECHO_CALL_BODY, TOOL_CALLS_PATH, toolCallsBody } from "../requests.ts";
import { alternatingRounds, perRound } from "../rounds.ts";
import { diagnosticRoundMs, type Scenario } from "../scenario.ts";
import { median } from "../stats.ts";

const FILES = 1_000;
/** `--quick` proves the scenario runs (CI): seeding 1,000 files was most of its 18 s there. */
const QUICK_FILES = 200;
const LINES_PER_FILE = 40;
/** No ratio target rides on these figures, so three short rounds do (the full bench must fit 4 minutes). */
const MAX_ROUNDS = 3;
/** Calls per seeding request, within the Worker's MAX_TOOL_CALLS (64). */
const SEED_BATCH = 50;

/** The file's text: code-like lines, one in a hundred files holding the searched word. */
function fileText(i: number): string {
  return (
    Array.from({ length: LINES_PER_FILE }, (_, n) =>
      n === 7 && i % 100 === 0 ? `// needle ${i}` : `export const value${n} = compute(${i}, ${n}); // line ${n}`,
    ).join("\n") + "\n"
  );
}

const pathOf = (i: number): string => `bench/dir${i % 20}/file${i}.ts`;

async function seedWorkspace(client: LoadClient, authorization: string, files: number): Promise<void> {
  for (let start = 0; start < files; start += SEED_BATCH) {
    const calls = Array.from({ length: Math.min(SEED_BATCH, files - start) }, (_, k) => ({
      id: `w${start + k}`,
      type: "function",
      function: { name: "write_file", arguments: JSON.stringify({ path: pathOf(start + k), content: fileText(start + k) }) },
    }));
    const { status, body } = await client.send({
      method: "POST",
      path: TOOL_CALLS_PATH,
      body: JSON.stringify({ tool_calls: calls }),
      headers: { authorization },
    });
    if (status !== 200 || body.includes('"status":"error"')) throw new Error(`bench: seeding the workspace failed (${status}): ${body.slice(0, 500)}`);
  }
}

export const workspaceFiles: Scenario = {
  id: "workspace-files",
  title: `files toolset over a ${FILES.toLocaleString("en")}-file R2 workspace: read_file, search_files (content, names) vs echo, full app`,
  async run(ctx) {
    const authorization = `Bearer ${ctx.agentKey}`;
    const files = ctx.quick ? QUICK_FILES : FILES;
    await seedWorkspace(ctx.client, authorization, files);
    const call = (body: string): RequestSpec => ({ method: "POST", path: TOOL_CALLS_PATH, body, headers: { authorization } });
    const search = toolCallsBody("search_files", { pattern: "needle \\d+", path: "bench", limit: 50 });
    // One search outside the timing, to check it covered every file without a budget stop.
    const probe = await ctx.client.send(call(search));
    const content = JSON.parse((JSON.parse(probe.body) as { results: { message: { content: string } }[] }).results[0]?.message.content ?? "{}") as Record<
      string,
      unknown
    >;
    const complete = content.files_searched === files && content.limit_reason === undefined && content.total_count === files / 100;

    const { warmupMs } = ctx.settings;
    const roundMs = diagnosticRoundMs(ctx.settings);
    const rounds = Math.min(MAX_ROUNDS, ctx.settings.rounds);
    // Two in flight: a content search reads 1,000 objects, so more would measure R2's queue.
    const concurrency = 2;
    const figures = await alternatingRounds(
      ctx,
      [
        { label: "echo (reference)", request: call(ECHO_CALL_BODY) },
        { label: "read_file, 100-line window", request: call(toolCallsBody("read_file", { path: pathOf(files / 2), offset: 1, limit: 100 })) },
        { label: `search_files content, ${files} files`, request: call(search) },
        { label: `search_files names, ${files} files`, request: call(toolCallsBody("search_files", { pattern: "file9*.ts", target: "files" })) },
      ],
      { concurrency, rounds, roundMs, warmupMs },
    );
    return {
      method: `${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up, bench agent key through the full app (auth, limits, audit); medians over rounds; CPU is workerd's per request, R2 simulator included`,
      columns: [
        { key: "rps", header: "req/s", digits: 0 },
        { key: "p50", header: "p50 ms", digits: 2 },
        { key: "p99", header: "p99 ms", digits: 2 },
        { key: "cpuUs", header: "CPU µs/req", digits: 0 },
      ],
      rows: figures.map((f) => ({
        label: f.label,
        values: { rps: median(f.rps), p50: median(f.p50Ms), p99: median(f.p99Ms), cpuUs: median(f.serverCpuUs) },
        note: `${f.bodyBytes} B answer`,
        perRound: perRound(f),
      })),
      checks: [
        {
          label: `search_files content search covers all ${files} files within its budgets`,
          target: `files_searched ${files}, no limit_reason, ${files / 100} matches`,
          actual: `files_searched ${String(content.files_searched)}, limit_reason ${String(content.limit_reason ?? "none")}, ${String(content.total_count)} matches`,
          pass: complete,
        },
      ],
    };
  },
};
