/**
 * Bundles a Worker into one ES module for workerd, with the settings wrangler uses for a deploy
 * (conditions, NODE_ENV, wrangler.toml's `minify = true` and `keep_names = false`), so
 * the code paths measured are the shipped ones. The bench Worker and the MCP peers
 * (scripts/bench/peers.ts) are all bundled by this one function, so their sizes compare.
 */
import { build } from "esbuild";
import { join } from "node:path";

export interface BundleOptions {
  /** `false` is for profiles, whose line numbers should point at readable code. */
  minify?: boolean;
}

/** Bundles `entry` (an absolute path) into `outfile`; dependencies resolve from the entry's folder up. */
export async function bundleWorker(entry: string, outfile: string, { minify = true }: BundleOptions = {}): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    conditions: ["workerd", "worker", "browser"],
    // "neutral" resolves no main fields; these are the ones wrangler's default platform uses,
    // and some dependencies (@asteasolutions/zod-to-openapi) only have "main".
    mainFields: ["browser", "module", "main"],
    // Imports the runtime provides (nodejs_compat covers node:*).
    external: ["cloudflare:*", "node:*"],
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    minify,
    keepNames: false,
    sourcemap: false,
    logLevel: "warning",
  });
  return outfile;
}

/** Builds the bench Worker (scripts/bench/worker.ts) into `outDir` and returns its main module's path. */
export function buildBenchWorker(root: string, outDir: string, options: BundleOptions = {}): Promise<string> {
  return bundleWorker(join(root, "scripts/bench/worker.ts"), join(outDir, "worker.mjs"), options);
}
