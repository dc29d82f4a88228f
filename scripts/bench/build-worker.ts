/**
 * Bundles scripts/bench/worker.ts into one ES module for workerd, with the settings wrangler
 * uses for a deploy (conditions, NODE_ENV), so the code paths measured are the shipped ones.
 */
import { build } from "esbuild";
import { join } from "node:path";

/**
 * Builds the bench Worker (or another entry, such as src/index.ts) into `outDir` and returns the
 * path of its main module.
 */
export async function buildBenchWorker(root: string, outDir: string, entry = "scripts/bench/worker.ts"): Promise<string> {
  const outfile = join(outDir, "worker.mjs");
  await build({
    entryPoints: [join(root, entry)],
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
    sourcemap: false,
    logLevel: "warning",
  });
  return outfile;
}
