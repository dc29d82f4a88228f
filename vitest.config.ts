// First, as a side-effect import (which import sorting never moves): it picks this run's
// loopback ports, which test-env.ts reads when it loads.
import "./test/support/run-ports.ts";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";
import { EVERYTHING_PORT_VAR, EVERYTHING_SSE_PORT_VAR } from "./test/support/run-ports.ts";
import { MODEL_HOST, STRAY_REJECTION_MARK, TEST_ADMIN_TOKEN, TEST_MODEL_KEY, TEST_MODEL_NAME, TEST_WEBHOOK_SECRET } from "./test/support/test-env.ts";
import { upstream } from "./test/support/upstream.ts";

// Two projects: everything that ships in the Worker runs inside workerd against real local
// bindings; the build-time generator (scripts/) is a Node program, so its tests run in Node.
// D1 migrations, read once here (Node side) and applied inside workerd by test/setup.ts.
const migrations = await readD1Migrations(new URL("./migrations", import.meta.url).pathname);
// The queues and Durable Objects whose background work each file's teardown drains (test/setup.ts).
const wrangler = unstable_readConfig({ config: new URL("./wrangler.toml", import.meta.url).pathname });
const background = {
  consumers: wrangler.queues.consumers ?? [],
  producers: Object.fromEntries((wrangler.queues.producers ?? []).map((producer: { queue: string; binding: string }) => [producer.queue, producer.binding])),
  durableObjects: wrangler.durable_objects.bindings.map((binding: { name: string; class_name: string }) => ({
    binding: binding.name,
    className: binding.class_name,
  })),
};

export default defineConfig({
  test: {
    // Pipeline tests provoke failures on purpose; print their logs only when a test fails.
    silent: "passed-only",
    // vitest's default on a 2-core machine is one file at a time; most files wait on workerd,
    // loopback servers or Chromium rather than on a core, so two at a time finish sooner.
    maxWorkers: 2,
    // One gateway test has a tool leave a promise rejecting after it returned, on purpose, to
    // prove the call is unaffected. Only that rejection, recognised by its text, is not a failure.
    onUnhandledError: (error) => (String(error.message).includes(STRAY_REJECTION_MARK) ? false : undefined),
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // Outbound fetches go to a local stand-in for the outside network, never out.
              outboundService: upstream,
              // Two more D1 databases, as audit shards for test/audit/audit-shards.test.ts, which
              // sets AUDIT_SHARDS on its own env; every other test keeps one database.
              d1Databases: ["DB_AUDIT_1", "DB_AUDIT_2"],
              bindings: {
                TEST_MIGRATIONS: migrations,
                TEST_BACKGROUND: background,
                // This run's server-everything ports (test/support/run-ports.ts), for test-env.ts.
                [EVERYTHING_PORT_VAR]: process.env[EVERYTHING_PORT_VAR] ?? "",
                [EVERYTHING_SSE_PORT_VAR]: process.env[EVERYTHING_SSE_PORT_VAR] ?? "",
                ADMIN_TOKEN: TEST_ADMIN_TOKEN,
                // Webhook secrets: the shipped webhooks' and the test webhooks' (test/webhooks/); HOOK_UNSET_SECRET stays unset.
                HOOK_GENERIC_SECRET: TEST_WEBHOOK_SECRET,
                HOOK_GITHUB_SECRET: TEST_WEBHOOK_SECRET,
                HOOK_SLACK_SECRET: TEST_WEBHOOK_SECRET,
                HOOK_TEST_SECRET: TEST_WEBHOOK_SECRET,
                HOOK_GITHUB_MENTION_SECRET: TEST_WEBHOOK_SECRET,
                // A schedule's callback signing secret (test/schedules/).
                SCHEDULE_SECRET_TEST: TEST_WEBHOOK_SECRET,
                // github_comment's own token, so a webhook run's reply can post to the GitHub stand-in
                // (test/support/upstream.ts) while github_repo, which reads GITHUB_TOKEN, stays unavailable.
                GITHUB_COMMENT_TOKEN: "ghp_test_comment_token",
                // The shipped example plugins (plugins/), switched on for every test file so
                // test/plugins/ can prove them through the real doors. Values no other test sends
                // or returns, so the plugins stay invisible elsewhere.
                PLUGIN_BLOCK_ARGUMENT_PATTERN: String.raw`rm\s+-rf\s+/`,
                PLUGIN_REDACT_RESULT_FIELDS: "api_token, session_cookie",
                // Agent runs talk to the scripted model (test/support/model-server.ts), which answers
                // from vitest's own process: with two files transforming there it was once slower
                // than 1.5 s (a CI run failed a run that should have completed), so 4 s; backoff
                // stays short to keep the retry scenarios quick.
                MODEL_BASE_URL: `http://${MODEL_HOST}/v1`,
                MODEL_API_KEY: TEST_MODEL_KEY,
                MODEL_NAME: TEST_MODEL_NAME,
                MODEL_TIMEOUT_MS: "4000",
                MODEL_BACKOFF_MS: "20",
              },
            },
          }),
        ],
        // The Worker's zod (wrangler.toml [alias], src/bundle/zod.ts), so tests run what ships.
        // Exact match only: zod's own subpaths (zod/v4/...) stay zod's.
        resolve: { alias: [{ find: /^zod$/, replacement: new URL("./src/bundle/zod.ts", import.meta.url).pathname }] },
        test: {
          name: "worker",
          // One workerd per vitest worker, reused by the files it runs one after another: a workerd
          // per file (isolate: true) spent most of the suite's 15 minutes starting workerd and
          // re-importing the Worker. Sharing used to let a file's background work (audit queue
          // batches, runs' alarms) reach the next file's storage, in 2 of 5 runs on 2026-12-01,
          // because reset() empties storage but not the queue broker, nor a handler already
          // running; test/setup.ts now has each file wait out its own work, and fail naming it.
          // The module graph is shared as well (re-importing it per file cost ~2 s a file), so
          // setup also forgets what the isolate keeps of the storage it empties (MCP federation).
          // Two workerds, one per core (maxWorkers).
          isolate: false,
          // Longer than the longest wait a test makes inside itself (runUntil, waitForDelivery:
          // 10 s), so those waits decide, with their message naming what did not happen. With
          // vitest's default of 5 s, an agent run that took 5-10 s on a loaded machine (its model
          // answers from vitest's own process) failed as a bare test timeout in chat-completions
          // and hook-runs, while the wait inside would still have seen it finish.
          testTimeout: 15_000,
          include: ["test/**/*.test.ts"],
          exclude: ["test/scripts/**"],
          setupFiles: ["./test/setup.ts"],
          // The real server-everything on loopback for the MCP federation tests, stopped by PID after the run.
          globalSetup: ["./test/support/everything-global-setup.ts"],
        },
      },
      {
        test: {
          name: "scripts",
          environment: "node",
          include: ["test/scripts/**/*.test.ts"],
          exclude: ["test/scripts/hostile-tools.test.ts"],
          // After the workerd files (a group of its own, so Node files never take a workerd's
          // slot), two at a time. Files starting local Workers at once "hung" in beforeAll until
          // its 120 s timeout on 2026-12-01, and again in a full run on the loaded machine on
          // 2026-12-05 (examples, approvals-page, one-sign-in). Not a lock or a shared port:
          // wrangler 4.156's unstable_startWorker gives each start its own ports, no inspector
          // (inspector: false), no dev registry (none unless dev.registry is passed), and its own
          // persist and bundle directories. The time went to `wrangler d1 migrations apply
          // --local`, run before each start, which starts one workerd per migration file (17 in a
          // row): 10-11 s of CPU against 3-4 s for the start itself, 104-120 s of wall time at a
          // load of 20. The globalSetup below runs it once per run; each Worker starts from a copy.
          sequence: { groupOrder: 1 },
          maxWorkers: 2,
          globalSetup: ["./test/scripts/support/migrated-state-global-setup.ts"],
        },
      },
      {
        test: {
          name: "hostile",
          environment: "node",
          // Last and alone: it measures how long other requests wait while a hostile call runs,
          // which a browser test or a workerd file beside it on the 2-core machine would inflate.
          include: ["test/scripts/hostile-tools.test.ts"],
          sequence: { groupOrder: 2 },
          maxWorkers: 1,
        },
      },
    ],
  },
});
