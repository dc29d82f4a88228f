/** scripts/dev-setup.ts: the ADMIN_TOKEN that `npm start` needs, written once into .dev.vars. */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureAdminToken } from "../../scripts/dev-setup.ts";

const SCRIPT = fileURLToPath(new URL("../../scripts/dev-setup.ts", import.meta.url));
const TOKEN = /^tg_[A-Za-z0-9_-]{43}$/;

let dir: string;
const devVars = () => readFile(join(dir, ".dev.vars"), "utf8");

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dev-setup-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ensureAdminToken", () => {
  it("creates .dev.vars with a 256-bit token, readable only by its owner", async () => {
    const result = ensureAdminToken(dir);
    expect(result.created).toBe(true);
    expect(result.token).toMatch(TOKEN);
    expect(await devVars()).toBe(`ADMIN_TOKEN=${result.token}\n`);
    if (process.platform !== "win32") expect((await stat(join(dir, ".dev.vars"))).mode & 0o777).toBe(0o600);
  });

  it("is idempotent: a second run keeps the token and the file", async () => {
    const first = ensureAdminToken(dir);
    const before = await devVars();
    const second = ensureAdminToken(dir);
    expect(second).toEqual({ created: false, token: first.token, file: first.file });
    expect(await devVars()).toBe(before);
  });

  it("appends to an existing file and keeps its other lines", async () => {
    await writeFile(join(dir, ".dev.vars"), "GITHUB_TOKEN=ghp_abc\n# a comment");
    const { token } = ensureAdminToken(dir);
    expect(await devVars()).toBe(`GITHUB_TOKEN=ghp_abc\n# a comment\nADMIN_TOKEN=${token}\n`);
  });

  it("leaves a token that is already set, quoted or with export", async () => {
    const text = 'export ADMIN_TOKEN = "my-own-token"\nGITHUB_TOKEN=x\n';
    await writeFile(join(dir, ".dev.vars"), text);
    expect(ensureAdminToken(dir)).toMatchObject({ created: false, token: "my-own-token" });
    expect(await devVars()).toBe(text);
  });

  it("fills a blank ADMIN_TOKEN line in place", async () => {
    await writeFile(join(dir, ".dev.vars"), "A=1\nADMIN_TOKEN=\nB=2\n");
    const { created, token } = ensureAdminToken(dir, () => "tg_fixed");
    expect({ created, token }).toEqual({ created: true, token: "tg_fixed" });
    expect(await devVars()).toBe("A=1\nADMIN_TOKEN=tg_fixed\nB=2\n");
  });

  it("does not mistake a commented-out line for a token", async () => {
    await writeFile(join(dir, ".dev.vars"), "# ADMIN_TOKEN=old\n");
    const { created, token } = ensureAdminToken(dir);
    expect(created).toBe(true);
    expect(await devVars()).toBe(`# ADMIN_TOKEN=old\nADMIN_TOKEN=${token}\n`);
  });
});

describe("node scripts/dev-setup.ts", () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8" });

  it("prints a new token once, and nothing about it on the next run", async () => {
    const first = run("--dir", dir);
    expect(first.status).toBe(0);
    const token = /ADMIN_TOKEN=(\S+)/.exec(await devVars())?.[1];
    expect(token).toMatch(TOKEN);
    expect(first.stdout).toContain(`Authorization: Bearer ${token ?? "?"}`);

    const second = run("--dir", dir);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe("");
  });

  it("rejects unknown arguments with exit code 2", () => {
    const result = run("--bogus");
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("usage: node scripts/dev-setup.ts");
  });
});
