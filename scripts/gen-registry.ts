/**
 * Writes src/registry/tools.gen.ts: one import per tool module under tools/, and a manifest of
 * the tools they register; src/webhooks/webhooks.gen.ts, the same for webhooks under webhooks/; and
 * src/plugins/plugins.gen.ts, for the pipeline-hook plugins under plugins/; and
 * src/openapi-sources/apis.gen.ts, the OpenAPI sources under apis/ converted (gen-registry/apis.ts). Discovery follows Hermes' `_module_registers_tools` (reference
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
 * node scripts/gen-registry.ts --refresh-specs  # fetch apis/ specs given by url again
 * ```
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { generateApis } from "./gen-registry/apis.ts";
import { checkRegistry } from "./gen-registry/checks.ts";
import { listToolFiles, readRegistrations } from "./gen-registry/discover.ts";
import { parseFiles } from "./gen-registry/parse.ts";
import { checkPlugins, PLUGINS_OUT_FILE, type PluginRegistration, readPluginRegistrations, renderPluginsModule } from "./gen-registry/plugins.ts";
import { renderManifest } from "./gen-registry/render.ts";
import { readStaticToolsets } from "./gen-registry/static-toolsets.ts";
import { compareGenErrors, formatGenError, type GenError, type Registration, type StaticToolsetDecl } from "./gen-registry/types.ts";
import {
  checkWebhooks,
  listWebhookFiles,
  readWebhookRegistrations,
  renderWebhooksModule,
  WEBHOOKS_OUT_FILE,
  type WebhookRegistration,
} from "./gen-registry/webhooks.ts";

export { formatGenError, type GenError } from "./gen-registry/types.ts";

/** Where the generator reads and writes; paths other than `root` are relative to `root`. */
export interface GenerateOptions {
  /** Absolute project root; every path in the result and in errors is relative to it. */
  root: string;
  toolsDir?: string;
  toolsetsFile?: string;
  outFile?: string;
  webhooksDir?: string;
  webhooksOutFile?: string;
  pluginsDir?: string;
  pluginsOutFile?: string;
}

/** What one generator run produced: the file text, the imported modules, and any errors. */
export interface GenerateResult {
  content: string;
  /** Project-relative paths of the tool modules imported, in import order. */
  files: string[];
  /** Sorted by file and position; when non-empty, `content` must not be written. */
  errors: GenError[];
  /** The webhook module (src/webhooks/webhooks.gen.ts) and the webhook modules it imports. */
  webhooks: { outFile: string; content: string; files: string[] };
  /** The plugin module (src/plugins/plugins.gen.ts) and the plugin modules it imports. */
  plugins: { outFile: string; content: string; files: string[] };
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
  webhooksDir = "webhooks",
  webhooksOutFile = WEBHOOKS_OUT_FILE,
  pluginsDir = "plugins",
  pluginsOutFile = PLUGINS_OUT_FILE,
}: GenerateOptions): GenerateResult {
  const paths = listToolFiles(root, toolsDir);
  const webhookPaths = new Set(listWebhookFiles(root, webhooksDir));
  const staticText = readOptional(join(root, toolsetsFile));
  const inputs = paths.map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));
  if (staticText !== undefined) inputs.push({ path: toolsetsFile, text: staticText });
  for (const path of webhookPaths) inputs.push({ path, text: readFileSync(join(root, path), "utf8") });
  const pluginPaths = new Set(listToolFiles(root, pluginsDir));
  for (const path of pluginPaths) inputs.push({ path, text: readFileSync(join(root, path), "utf8") });
  const parsed = parseFiles(inputs);
  const errors = [...parsed.errors];
  // A file that does not parse is reported once; reading it further would only add noise.
  const broken = new Set(parsed.errors.map((error) => error.file));

  const tools = found<Registration>();
  let toolsets: StaticToolsetDecl[] = [];
  const webhooks = found<WebhookRegistration>();
  const plugins = found<PluginRegistration>();
  for (const file of parsed.files) {
    if (broken.has(file.path)) continue;
    if (webhookPaths.has(file.path)) collect(file, readWebhookRegistrations(file), webhooks, errors);
    else if (pluginPaths.has(file.path)) collect(file, readPluginRegistrations(file), plugins, errors);
    else if (file.path === toolsetsFile) {
      const result = readStaticToolsets(file);
      toolsets = result.toolsets;
      errors.push(...result.errors);
    } else collect(file, readRegistrations(file), tools, errors);
  }
  const { files, registrations } = tools;

  const checked = checkRegistry(registrations, toolsets);
  errors.push(...checked.errors);
  const toolsetNames = new Set([...toolsets.map((t) => t.name.value), ...registrations.map((r) => r.toolset.value)]);
  errors.push(...checkWebhooks(webhooks.registrations, toolsetNames));
  errors.push(...checkPlugins(plugins.registrations));
  return {
    content: renderManifest(outFile, files, checked.winners),
    files,
    errors: errors.sort(compareGenErrors),
    webhooks: { outFile: webhooksOutFile, content: renderWebhooksModule(webhooksOutFile, webhooks.files, webhooks.registrations), files: webhooks.files },
    plugins: { outFile: pluginsOutFile, content: renderPluginsModule(pluginsOutFile, plugins.files, plugins.registrations), files: plugins.files },
  };
}

/** The modules of one kind (tools, webhooks, plugins) to import, and what they register. */
interface Found<R> {
  files: string[];
  registrations: R[];
}

function found<R>(): Found<R> {
  return { files: [], registrations: [] };
}

/** Adds one file's reading to `into`: a file that registers (or tries to) is imported. */
function collect<R>(file: { path: string }, result: { registrations: R[]; errors: GenError[] }, into: Found<R>, errors: GenError[]): void {
  errors.push(...result.errors);
  if (result.registrations.length > 0 || result.errors.length > 0) into.files.push(file.path);
  into.registrations.push(...result.registrations);
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
 * The command line: `[--check] [--refresh-specs] [--root <dir>]`. Returns the exit code. `--root` defaults to
 * this script's project, so it works from any working directory.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let check = false;
  let refreshSpecs = false;
  let root = resolve(import.meta.dirname, "..");
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = argv[i + 1];
    if (arg === "--check") check = true;
    else if (arg === "--refresh-specs") refreshSpecs = true;
    else if (arg === "--root" && next !== undefined) {
      root = resolve(next);
      i++;
    } else {
      console.error(`gen-registry: unknown argument ${JSON.stringify(arg)}; usage: node scripts/gen-registry.ts [--check] [--refresh-specs] [--root <dir>]`);
      return 2;
    }
  }

  const outFile = "src/registry/tools.gen.ts";
  const { content, files, errors, webhooks, plugins } = generateRegistry({ root, outFile });
  const apis = await generateApis({ root, check, refreshSpecs });
  for (const spec of apis.fetched) console.log(`gen-registry: fetched ${spec.path}; commit it (later runs use it, and --check never fetches)`);
  errors.push(...apis.errors);
  if (errors.length > 0) {
    for (const error of errors) console.error(formatGenError(error));
    console.error(`gen-registry: ${errors.length} error(s); ${outFile}, ${webhooks.outFile}, ${plugins.outFile} and ${apis.outFile} were not written.`);
    return 1;
  }
  const outputs = [
    { path: outFile, content, what: `${files.length} tool module(s)` },
    { path: webhooks.outFile, content: webhooks.content, what: `${webhooks.files.length} webhook module(s)` },
    { path: plugins.outFile, content: plugins.content, what: `${plugins.files.length} plugin module(s)` },
    { path: apis.outFile, content: apis.content, what: `${apis.sources} OpenAPI source(s)` },
  ];
  let stale = 0;
  for (const output of outputs) {
    const current = readOptional(join(root, output.path));
    if (current === output.content) continue;
    if (check) {
      console.error(`${output.path} is stale; run npm run gen${current === undefined ? " (the file does not exist)" : ""}`);
      stale += 1;
      continue;
    }
    // Rewriting identical bytes would still bump the mtime and re-trigger wrangler's watcher.
    mkdirSync(dirname(join(root, output.path)), { recursive: true });
    writeFileSync(join(root, output.path), output.content);
    console.log(`gen-registry: wrote ${output.path} (${output.what})`);
  }
  return stale === 0 ? 0 : 1;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
