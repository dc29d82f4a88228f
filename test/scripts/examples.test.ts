/**
 * Every program in examples/ and the curl sessions of the README and docs/getting-started.md,
 * run as a reader would run them, against one local Worker (wrangler dev, as `npm start` serves
 * it) and a scripted model on loopback: an example or a README line that rots fails here. Each
 * example's answer must carry the tool result toolgate gave, so a loop that never reached
 * toolgate cannot pass. The README's test command must be the one CI runs, and every relative
 * link of the README and docs/ must lead somewhere.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curlSession } from "./support/curl-session.ts";
import { type LocalWorker, startLocalWorker } from "./support/local-worker.ts";
import { brokenLinks } from "./support/markdown-links.ts";
import { ANSWER_PREFIX, type ScriptedModel, startScriptedModel } from "./support/scripted-model.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ADMIN_TOKEN = `tg_examples_admin_${crypto.randomUUID().replaceAll("-", "")}`;
/** What echo answers for the scripted model's call ({text: "hello", times: 2}), as the model reads it. */
const ECHOED = JSON.stringify({ text: "hello hello" });

let worker: LocalWorker;
let model: ScriptedModel;
let agentKey: string;

beforeAll(async () => {
  // The model first: the Worker's agent runs (examples/agent-run.ts) call it, so it names it.
  model = await startScriptedModel();
  worker = await startLocalWorker({
    secrets: { ADMIN_TOKEN, MODEL_API_KEY: "scripted" },
    vars: { MODEL_BASE_URL: `${model.origin}/v1`, MODEL_NAME: "scripted-model" },
  });
  const response = await fetch(`${worker.origin}/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "examples-agent", role: "agent" }),
  });
  expect(response.status).toBe(201);
  agentKey = ((await response.json()) as { key: string }).key;
}, 120_000);

afterAll(async () => {
  await Promise.all([worker?.dispose(), model?.close()]);
});

/** Runs `args` with nothing in the environment but PATH and `env`; resolves with its stdout. */
async function exec(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  // Only these variables: a reader's own MODEL_* or OPENAI_* must not steer the run. (The cast:
  // worker-configuration.d.ts declares the Worker's vars on ProcessEnv, which a child need not have.)
  const childEnv: NodeJS.ProcessEnv = Object.assign(Object.create(null) as NodeJS.ProcessEnv, { PATH: process.env.PATH ?? "", ...env });
  const { stdout } = await promisify(execFile)(command, args, { cwd, env: childEnv, timeout: 60_000 });
  return stdout;
}

/** Runs an example with `command` in the repo root, as a reader would, pointed at the local Worker. */
const run = (command: string, file: string, env: Record<string, string>) =>
  exec(command, [join(ROOT, file)], ROOT, { TOOLGATE_URL: worker.origin, TOOLGATE_KEY: agentKey, ...env });

const modelEnv = (baseUrl: string) => ({ MODEL_BASE_URL: baseUrl, MODEL_API_KEY: "scripted", MODEL: "scripted-model" });

// Each example is its own Node process; they share the one Worker and model, so they run at once.
describe.concurrent("the examples, against a local Worker and a scripted model", { timeout: 60_000 }, () => {
  it("the OpenAI SDK loop hands the model's tool call to toolgate and the result back", async () => {
    const stdout = await run(process.execPath, "examples/openai-tool-loop.ts", modelEnv(`${model.origin}/v1`));
    expect(stdout.trim()).toBe(`${ANSWER_PREFIX}${ECHOED}`);
  });

  it("the Anthropic SDK loop does the same with tool_use and tool_result blocks", async () => {
    const stdout = await run(process.execPath, "examples/anthropic-tool-loop.ts", modelEnv(model.origin));
    expect(stdout.trim()).toBe(`${ANSWER_PREFIX}${ECHOED}`);
  });

  it("the AI SDK agent runs toolgate's tools as its own", async () => {
    const stdout = await run(process.execPath, "examples/ai-sdk-agent.ts", modelEnv(`${model.origin}/v1`));
    expect(stdout.trim()).toBe(`${ANSWER_PREFIX}${ECHOED}`);
  });

  it("the MCP SDK client lists the tools and calls echo", async () => {
    const stdout = await run(process.execPath, "examples/mcp-client.ts", {});
    expect(stdout).toMatch(/^\d+ tools, among them: /);
    expect(stdout).toContain(ECHOED);
  });

  it("the OpenAI Responses loop sends function_call items to toolgate and its function_call_output back", async () => {
    const stdout = await run(process.execPath, "examples/openai-responses-loop.ts", modelEnv(`${model.origin}/v1`));
    expect(stdout.trim()).toBe(`${ANSWER_PREFIX}${ECHOED}`);
    expect(model.requests.filter((request) => request.path.endsWith("/responses"))).toHaveLength(2);
  });

  it("the Gemini loop sends functionCall parts to toolgate and its functionResponse parts back", async () => {
    const stdout = await run(process.execPath, "examples/gemini-tool-loop.ts", modelEnv(model.origin));
    expect(stdout.trim()).toBe(`${ANSWER_PREFIX}${ECHOED}`);
    expect(model.requests.filter((request) => request.path.endsWith(":generateContent"))).toHaveLength(2);
  });

  it("the agent run example starts a run on the gateway and follows it to the answer", async () => {
    const stdout = await run(process.execPath, "examples/agent-run.ts", {});
    expect(stdout.trim()).toBe(`${ANSWER_PREFIX}${ECHOED}`);
  });

  it("the curl script lists the tools and runs a mixed batch", async () => {
    const stdout = await run("bash", "examples/curl.sh", {});
    const [list, batch] = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(list).toMatchObject({ format: "anthropic" });
    expect(batch).toMatchObject({
      results: [
        { id: "call_1", status: "ok" },
        { id: "toolu_1", status: "ok" },
      ],
    });
  });
});

/**
 * One answer per curl: a line of JSON, or for a streamed answer (`event:` and `data:` lines, a
 * blank line after each message) its messages as `{events: [{event, data}]}`.
 */
function curlAnswers(stdout: string): Record<string, unknown>[] {
  const answers: Record<string, unknown>[] = [];
  let stream: { event: string; data?: unknown }[] | undefined;
  for (const line of stdout.trim().split("\n")) {
    if (line.startsWith("event: ")) {
      if (stream === undefined) answers.push({ events: (stream = []) });
      stream.push({ event: line.slice("event: ".length) });
    } else if (line.startsWith("data: ") && stream !== undefined) {
      const last = stream.at(-1);
      if (last !== undefined) last.data = JSON.parse(line.slice("data: ".length));
    } else if (line !== "") {
      stream = undefined;
      answers.push(JSON.parse(line) as Record<string, unknown>);
    }
  }
  return answers;
}

/** Runs `session` in a fresh directory whose .dev.vars holds the token, as a reader's checkout has it; its answers. */
async function runSession(session: string): Promise<Record<string, unknown>[]> {
  const dir = await mkdtemp(join(tmpdir(), "toolgate-readme-"));
  try {
    await writeFile(join(dir, ".dev.vars"), `ADMIN_TOKEN=${ADMIN_TOKEN}\n`);
    await writeFile(join(dir, "session.sh"), session);
    const answers = curlAnswers(await exec("bash", [join(dir, "session.sh")], dir));
    expect(answers).toHaveLength(session.match(/^curl /gm)?.length ?? -1);
    return answers;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("the README's curl session", { timeout: 60_000 }, () => {
  it("runs as written against `npm start`'s Worker, with the token from .dev.vars, in five lines", async () => {
    const session = curlSession(await readFile(join(ROOT, "README.md"), "utf8"), "A curl session", new URL(worker.origin).host);
    // The two lines curlSession adds, then the README's five.
    expect(session.trim().split("\n")).toHaveLength(2 + 5);
    const answers = await runSession(session);
    expect(answers[0]).toMatchObject({ format: "anthropic", tools: expect.arrayContaining([expect.objectContaining({ name: "echo" })]) });
    expect(answers[1]).toMatchObject({
      results: [
        { id: "call_1", tool: "echo", status: "ok", message: { role: "tool", tool_call_id: "call_1", content: JSON.stringify({ text: "hello hello" }) } },
      ],
    });
    expect(answers[2]).toMatchObject({
      results: [{ status: "error", error_code: "INVALID_ARGUMENTS", message: { type: "tool_result", tool_use_id: "toolu_1", is_error: true } }],
    });
    expect(answers[3]).toMatchObject({ name: "research-agent", key: expect.stringMatching(/^tg_/) });
  });
});

describe("the longer curl session of docs/getting-started.md", { timeout: 60_000 }, () => {
  it("runs as written against `npm start`'s Worker, with the token from .dev.vars", async () => {
    const markdown = await readFile(join(ROOT, "docs/getting-started.md"), "utf8");
    const answers = await runSession(curlSession(markdown, "A longer curl session", new URL(worker.origin).host));
    expect(answers[0]).toMatchObject({ format: "anthropic" });
    expect(answers[1]).toMatchObject({
      results: [
        { id: "call_1", tool: "echo", status: "ok", message: { role: "tool", tool_call_id: "call_1", content: JSON.stringify({ text: "hello hello" }) } },
      ],
    });
    expect(answers[2]).toMatchObject({
      results: [{ status: "error", error_code: "INVALID_ARGUMENTS", message: { type: "tool_result", tool_use_id: "toolu_1", is_error: true } }],
    });
    expect(answers[3]).toMatchObject({
      events: [
        {
          event: "result",
          data: { index: 0, id: "call_1", result: { message: { type: "function_call_output", call_id: "call_1", output: JSON.stringify({ text: "hi" }) } } },
        },
        {
          event: "result",
          data: { index: 1, id: "g1", result: { message: { functionResponse: { id: "g1", name: "echo", response: { output: { text: "yo" } } } } } },
        },
        { event: "batch", data: { results: [{ id: "call_1" }, { id: "g1" }] } },
      ],
    });
    expect(answers[4]).toMatchObject({ name: "research-agent", key: expect.stringMatching(/^tg_/) });
    // It goes on to the audit log: both answer JSON.
    expect(answers).toHaveLength(7);
  });
});

describe("the README and docs/", () => {
  it("give CI's test command in the README, as .ci/run runs it", async () => {
    const ci = await readFile(join(ROOT, ".ci/run"), "utf8");
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const command = "npm install && npm test";
    expect(ci.split("\n")).toContain(command);
    expect(readme).toContain(`Run the tests:\n\n\`\`\`sh\n${command}\n\`\`\``);
  });

  it("keep the README at 200 lines at most, with a link to each topic's doc", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(200);
    for (const doc of ["getting-started", "tools", "mcp", "agent-runs", "webhooks", "approvals", "operations", "security", "architecture", "deploy"]) {
      expect(readme).toContain(`(docs/${doc}.md`);
    }
  });

  it("link only to files and headings that exist", async () => {
    const docs = (await readdir(join(ROOT, "docs"))).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`);
    expect(brokenLinks(ROOT, ["README.md", ...docs])).toEqual([]);
  });
});
