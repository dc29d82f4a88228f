/**
 * The production bundle's size: builds with the real wrangler.toml (`wrangler deploy --dry-run
 * --outdir dist`, as `npm run build` does) and gzips the emitted modules the way wrangler's
 * "Total Upload" line does (default gzip level over all modules together). Workers' limits
 * apply to that gzip figure: 3 MiB on the Free plan, 10 MiB on Paid.
 *
 * @example
 * ```sh
 * npm run size              # prints the sizes
 * ```
 * `npm run bench` imports measureBundleSize and reports the same figures.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export interface ModuleSize {
  name: string;
  bytes: number;
  gzipBytes: number;
}

export interface BundleSize {
  outDir: string;
  modules: ModuleSize[];
  totalBytes: number;
  /** gzip of all modules together, as wrangler reports it. */
  totalGzipBytes: number;
  /** Wrangler's own "Total Upload" line, to cross-check. */
  wranglerReport: string | undefined;
}

/** Files in the outdir that are not modules of the Worker. */
const NOT_MODULES = /(\.map|README\.md)$/;

/** Builds the Worker with `wrangler deploy --dry-run` and measures the modules it emitted. */
export function measureBundleSize(root: string, outDir = "dist"): BundleSize {
  const started = Date.now();
  const wrangler = join(root, "node_modules/wrangler/bin/wrangler.js");
  // node_modules/.bin first, so wrangler's custom build command (`node scripts/...`) gets Node 22.
  const PATH = [join(root, "node_modules/.bin"), dirname(process.execPath), process.env.PATH ?? ""].join(delimiter);
  const run = spawnSync(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outDir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PATH, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
    timeout: 120_000,
  });
  if (run.status !== 0) {
    throw new Error(`bundle-size: wrangler deploy --dry-run failed (exit ${String(run.status ?? run.signal)}):\n${run.stdout}\n${run.stderr}`);
  }
  const dir = resolve(root, outDir);
  // Only files written by this build: wrangler does not clear the outdir, so old ones may linger.
  const names = readdirSync(dir)
    .filter((name) => !NOT_MODULES.test(name) && statSync(join(dir, name)).isFile() && statSync(join(dir, name)).mtimeMs >= started - 1_000)
    .sort();
  if (names.length === 0) throw new Error(`bundle-size: wrangler emitted no module into ${dir}`);
  const contents = names.map((name) => readFileSync(join(dir, name)));
  const modules = names.map((name, i) => {
    const content = contents[i] ?? Buffer.alloc(0);
    return { name, bytes: content.byteLength, gzipBytes: gzipSync(content).byteLength };
  });
  return {
    outDir,
    modules,
    totalBytes: modules.reduce((sum, m) => sum + m.bytes, 0),
    totalGzipBytes: gzipSync(Buffer.concat(contents)).byteLength,
    wranglerReport: /Total Upload: (.*)/.exec(run.stdout)?.[1]?.trim(),
  };
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KiB`;

if (import.meta.main) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const size = measureBundleSize(root);
  for (const m of size.modules) console.log(`${join(size.outDir, m.name)}  ${kib(m.bytes)}  gzip ${kib(m.gzipBytes)}`);
  console.log(`total  ${kib(size.totalBytes)}  gzip ${kib(size.totalGzipBytes)}  (wrangler: ${size.wranglerReport ?? "no report"})`);
}
