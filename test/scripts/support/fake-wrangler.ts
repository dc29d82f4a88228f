/**
 * A stand-in for the `wrangler` CLI, for test/scripts/deploy.test.ts: Cloudflare's CLI talks to
 * the network, which tests cannot reach. It answers the commands scripts/deploy.ts runs the way
 * wrangler does (exit codes, a create of something that exists fails, `secret list` prints JSON
 * on stdout and a warning on stderr), keeps the account's state in a JSON file, and records each
 * call's argv (and stdin) as a line of calls.jsonl.
 *
 * Environment: FAKE_WRANGLER_DIR (state and log), FAKE_WRANGLER_URL (the workers.dev URL `deploy`
 * prints), FAKE_WRANGLER_FAIL_ONCE=<command> (that command, e.g. "deploy", fails the first time,
 * as an interrupted deploy would). A script, not a module: import only its types.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What the fake account holds. */
export interface FakeAccount {
  queues: string[];
  databases: string[];
  /** Whether `d1 migrations apply --remote` has run since the databases existed. */
  migrated: boolean;
  deployed: boolean;
  secrets: Record<string, string>;
  failedOnce: string[];
}

/** One recorded call. */
export interface FakeCall {
  argv: string[];
  stdin?: string;
}

const dir = process.env.FAKE_WRANGLER_DIR ?? "";
const workersDevUrl = process.env.FAKE_WRANGLER_URL ?? "";
const stateFile = join(dir, "state.json");
const argv = process.argv.slice(2);
const account: FakeAccount = existsSync(stateFile)
  ? (JSON.parse(readFileSync(stateFile, "utf8")) as FakeAccount)
  : { queues: [], databases: [], migrated: false, deployed: false, secrets: {}, failedOnce: [] };

function answer(code: number, stdout: string, stderr = ""): never {
  writeFileSync(stateFile, JSON.stringify(account));
  if (stdout !== "") process.stdout.write(`${stdout}\n`);
  if (stderr !== "") process.stderr.write(`${stderr}\n`);
  process.exit(code);
}

const stdin = argv[0] === "secret" && argv[1] === "put" ? readFileSync(0, "utf8") : undefined;
appendFileSync(join(dir, "calls.jsonl"), `${JSON.stringify({ argv, ...(stdin === undefined ? {} : { stdin }) } satisfies FakeCall)}\n`);

const [group, action, name] = argv;
const commandName = argv.filter((arg) => !arg.startsWith("-")).join(" ");
if (process.env.FAKE_WRANGLER_FAIL_ONCE === commandName && !account.failedOnce.includes(commandName)) {
  account.failedOnce.push(commandName);
  answer(1, "", "✘ [ERROR] A request to the Cloudflare API failed: fetch failed (the network went away)");
}

if (group === "whoami") answer(0, JSON.stringify({ loggedIn: true, authType: "API Token", accounts: [{ id: "fake", name: "Fake" }] }));
if (group === "queues" && action === "create" && name !== undefined) {
  if (account.queues.includes(name))
    answer(1, "", `✘ [ERROR] A request to the Cloudflare API (/accounts/fake/queues) failed.\n\n  Queue name already taken [code: 11009]`);
  account.queues.push(name);
  answer(0, `🌀 Creating queue '${name}'\n✅ Created queue '${name}'`);
}
if (group === "queues" && action === "info" && name !== undefined) {
  if (account.queues.includes(name)) answer(0, `Queue Name: ${name}\nQueue ID: fake-${name}`);
  answer(1, "", `✘ [ERROR] Queue "${name}" does not exist.`);
}
if (group === "d1" && action === "create" && name !== undefined) {
  if (account.databases.includes(name)) answer(1, "", "✘ [ERROR] A database with that name already exists");
  account.databases.push(name);
  answer(0, `✅ Successfully created DB '${name}'`);
}
if (group === "d1" && action === "info" && name !== undefined) {
  if (account.databases.includes(name)) answer(0, `{"name": "${name}"}`);
  answer(1, "", `✘ [ERROR] Couldn't find DB with name '${name}'`);
}
if (group === "d1" && action === "migrations" && argv[2] === "apply" && argv.includes("--remote")) {
  if (account.databases.length === 0) answer(1, "", "✘ [ERROR] Couldn't find a D1 DB named 'toolgate' (bound as 'DB') in the API.");
  const already = account.migrated;
  account.migrated = true;
  answer(0, already ? "✅ No migrations to apply!" : "🌀 Applying 10 migrations\n✅ Applied 10 migrations");
}
if (group === "deploy") {
  // The order the real deploy needs: consumers' queues exist, the schema is the new code's.
  if (account.queues.length === 0) answer(1, "", '✘ [ERROR] Queue "toolgate-audit" does not exist.');
  if (!account.migrated) answer(1, "", "fake wrangler: deploy ran before the D1 migrations");
  account.deployed = true;
  answer(0, `Uploaded toolgate (3.1 sec)\nDeployed toolgate triggers (1.2 sec)\n  ${workersDevUrl}\n  schedule: 17 3 * * *\nCurrent Version ID: fake-version`);
}
if (group === "secret" && action === "list") {
  if (!account.deployed) answer(1, "", '✘ [ERROR] Worker "toolgate" not found.');
  const list = Object.keys(account.secrets).map((secret) => ({ name: secret, type: "secret_text" }));
  answer(0, JSON.stringify(list, null, "  "), "▲ [WARNING] A newer version of wrangler is available");
}
if (group === "secret" && action === "put" && name !== undefined && stdin !== undefined) {
  account.secrets[name] = stdin;
  answer(0, `✨ Success! Uploaded secret ${name}`);
}
answer(2, "", `fake wrangler: unexpected command ${JSON.stringify(argv)}`);
