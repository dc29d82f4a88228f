/**
 * Writes src/registry/tools.gen.ts: one import per tool module under tools/, and a manifest of
 * the tools they register. Discovery follows Hermes' `_module_registers_tools` (reference
 * §2.8); on top of it the generator checks names, toolsets, includes and dependsOn statically,
 * so a broken tool tree fails here with file:line instead of at the first request.
 *
 * Runs before every test run and on every `wrangler dev` rebuild, so it parses each file once
 * and never type-checks.
 *
 * @example
 * ```sh
 * node scripts/gen-registry.ts          # write the file if it changed
 * node scripts/gen-registry.ts --check  # exit 1 if it is stale (CI)
 * ```
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { checkRegistry } from "./gen-registry/checks.ts";
import { listToolFiles, readRegistrations } from "./gen-registry/discover.ts";
import { parseFiles } from "./gen-registry/parse.ts";
import { renderManifest } from "./gen-registry/render.ts";
import { readStaticToolsets } from "./gen-registry/static-toolsets.ts";
import { compareGenErrors, formatGenError, type GenError, type Registration, type StaticToolsetDecl } from "./gen-registry/types.ts";

export { formatGenError, type GenError } from "./gen-registry/types.ts";

/** Where the generator reads and writes; paths other than `root` are relative to `root`. */
export interface GenerateOptions {
  /** Absolute project root; every path in the result and in errors is relative to it. */
  root: string;
  toolsDir?: string;
  toolsetsFile?: string;
  outFile?: string;
}

/** What one generator run produced: the file text, the imported modules, and any errors. */
export interface GenerateResult {
  content: string;
  /** Project-relative paths of the tool modules imported, in import order. */
  files: string[];
  /** Sorted by file and position; when non-empty, `content` must not be written. */
  errors: GenError[];
}

/**
 * Discovers the tool modules, checks them against the static toolsets and renders the
 * registry module. Reads files, writes nothing.
 *
 * @example
 * ```ts
 * const { content, errors } = generateRegistry({ root: process.cwd() });
 * ```
 */
export function generateRegistry({
  root,
  toolsDir = "tools",
  toolsetsFile = "src/toolsets/static-toolsets.ts",
  outFile = "src/registry/tools.gen.ts",
}: GenerateOptions): GenerateResult {
  const paths = listToolFiles(root, toolsDir);
  const staticText = readOptional(join(root, toolsetsFile));
  const inputs = paths.map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));
  if (staticText !== undefined) inputs.push({ path: toolsetsFile, text: staticText });
  const parsed = parseFiles(inputs);
  const errors = [...parsed.errors];
  // A file that does not parse is reported once; reading it further would only add noise.
  const broken = new Set(parsed.errors.map((error) => error.file));

  const files: string[] = [];
  const registrations: Registration[] = [];
  let toolsets: StaticToolsetDecl[] = [];
  for (const file of parsed.files) {
    if (broken.has(file.path)) continue;
    if (file.path === toolsetsFile) {
      const result = readStaticToolsets(file);
      toolsets = result.toolsets;
      errors.push(...result.errors);
      continue;
    }
    const result = readRegistrations(file);
    errors.push(...result.errors);
    if (result.registrations.length > 0 || result.errors.length > 0) files.push(file.path);
    registrations.push(...result.registrations);
  }

  const checked = checkRegistry(registrations, toolsets);
  errors.push(...checked.errors);
  return { content: renderManifest(outFile, files, checked.winners), files, errors: errors.sort(compareGenErrors) };
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The command line: `[--check] [--root <dir>]`. Returns the exit code. `--root` defaults to
 * this script's project, so it works from any working directory.
 */
export function main(argv: readonly string[]): number {
  let check = false;
  let root = resolve(import.meta.dirname, "..");
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = argv[i + 1];
    if (arg === "--check") check = true;
    else if (arg === "--root" && next !== undefined) {
      root = resolve(next);
      i++;
    } else {
      console.error(`gen-registry: unknown argument ${JSON.stringify(arg)}; usage: node scripts/gen-registry.ts [--check] [--root <dir>]`);
      return 2;
    }
  }

  const outFile = "src/registry/tools.gen.ts";
  const { content, files, errors } = generateRegistry({ root, outFile });
  if (errors.length > 0) {
    for (const error of errors) console.error(formatGenError(error));
    console.error(`gen-registry: ${errors.length} error(s); ${outFile} was not written.`);
    return 1;
  }
  const current = readOptional(join(root, outFile));
  if (check) {
    if (current === content) return 0;
    console.error(`${outFile} is stale; run npm run gen${current === undefined ? " (the file does not exist)" : ""}`);
    return 1;
  }
  // Rewriting identical bytes would still bump the mtime and re-trigger wrangler's watcher.
  if (current !== content) {
    mkdirSync(dirname(join(root, outFile)), { recursive: true });
    writeFileSync(join(root, outFile), content);
    console.log(`gen-registry: wrote ${outFile} (${files.length} tool module(s))`);
  }
  return 0;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
