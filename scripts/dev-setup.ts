/**
 * Local setup for `npm start` (run by prestart): makes sure .dev.vars holds an ADMIN_TOKEN, the
 * bootstrap admin key every /v1 route needs before any API key exists. A new token is printed
 * once; later runs leave it, and every other line of the file, alone.
 *
 * In production the token is a secret instead: `npx wrangler secret put ADMIN_TOKEN`.
 *
 * @example
 * ```sh
 * node scripts/dev-setup.ts               # the project root's .dev.vars
 * node scripts/dev-setup.ts --dir <dir>   # another directory's
 * ```
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateApiKey } from "../src/auth/key-format.ts";

export const DEV_VARS_FILE = ".dev.vars";

/** What ensureAdminToken found or did. */
export interface DevSetupResult {
  /** True when this run wrote a new token. */
  created: boolean;
  token: string;
  file: string;
}

// dotenv syntax, as wrangler reads .dev.vars: optional `export`, spaces around `=`, quotes.
const ADMIN_LINE = /^[ \t]*(?:export[ \t]+)?ADMIN_TOKEN[ \t]*=[ \t]*(.*?)[ \t]*$/m;

/** Ensures `<dir>/.dev.vars` has a non-empty ADMIN_TOKEN; writes one only when it is missing or blank. */
export function ensureAdminToken(dir: string, generate: () => string = generateApiKey): DevSetupResult {
  const file = join(dir, DEV_VARS_FILE);
  const text = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  const match = text === undefined ? null : ADMIN_LINE.exec(text);
  const existing = match?.[1]?.replace(/^(["'])(.*)\1$/, "$2") ?? "";
  if (existing !== "") return { created: false, token: existing, file };

  const token = generate();
  const line = `ADMIN_TOKEN=${token}`;
  if (text === undefined) {
    // Owner-only: the file holds secrets.
    writeFileSync(file, `${line}\n`, { mode: 0o600 });
  } else if (match !== null) {
    writeFileSync(file, text.replace(ADMIN_LINE, line));
  } else {
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    writeFileSync(file, `${text}${text === "" || text.endsWith("\n") ? "" : eol}${line}${eol}`);
  }
  return { created: true, token, file };
}

function main(args: readonly string[]): number {
  let dir = fileURLToPath(new URL("..", import.meta.url));
  if (args[0] === "--dir" && args[1] !== undefined && args.length === 2) dir = args[1];
  else if (args.length > 0) {
    console.error(`dev-setup: unknown arguments ${JSON.stringify(args)}; usage: node scripts/dev-setup.ts [--dir <dir>]`);
    return 2;
  }
  const { created, token, file } = ensureAdminToken(dir);
  if (created) {
    console.log(`dev-setup: wrote a new ADMIN_TOKEN to ${file}. It is printed only now (it stays in that file):`);
    console.log(`  Authorization: Bearer ${token}`);
  }
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
