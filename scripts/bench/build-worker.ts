/**
 * Bundles a Worker into one ES module for workerd, with the settings wrangler uses for a deploy
 * (conditions, NODE_ENV, wrangler.toml's `minify = true`, `keep_names = false` and, for
 * toolgate's own code, its `[alias]`), so the code paths measured are the shipped ones. The bench Worker and the MCP peers
 * (scripts/bench/peers.ts) are all bundled by this one function, so their sizes compare.
 */

import { copyFileSync, mkdirSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { unstable_readConfig } from "wrangler";

export interface BundleOptions {
  /** `false` is for profiles, whose line numbers should point at readable code. */
  minify?: boolean;
  /** Module substitutions, as esbuild's `alias` (see workerAlias). */
  alias?: Record<string, string>;
}

/** A wrangler config's `[alias]`, relative paths resolved from the config's folder as wrangler does. */
export function workerAlias(configPath: string): Record<string, string> {
  const alias: Record<string, string> = unstable_readConfig({ config: configPath }).alias ?? {};
  return Object.fromEntries(Object.entries(alias).map(([from, to]) => [from, to.startsWith(".") ? resolve(dirname(configPath), to) : to]));
}

/**
 * A .wasm import (QuickJS, for execute_code) stays an import of a file copied beside the bundle,
 * as wrangler emits it: Miniflare then loads it as a compiled WebAssembly module by its default
 * module rules, as workerd does in production.
 */
function wasmBesideBundle(outDir: string): Plugin {
  return {
    name: "wasm-beside-bundle",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /\.wasm$/ }, (args) => {
        const source = resolve(args.resolveDir, args.path);
        mkdirSync(outDir, { recursive: true });
        copyFileSync(source, join(outDir, basename(source)));
        return { path: `./${basename(source)}`, external: true };
      });
    },
  };
}

/**
 * A bare Node built-in (`import("fs")`, as the OpenAPI ref parser's file resolver writes it, which
 * toolgate never enables) becomes the `node:` import wrangler makes of it under nodejs_compat.
 */
function bareBuiltinsAsNode(): Plugin {
  const names = new Set(builtinModules.filter((name) => !name.startsWith("_")));
  return {
    name: "bare-builtins-as-node",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^[a-z_/]+$/ }, (args) => (names.has(args.path) ? { path: `node:${args.path}`, external: true } : undefined));
    },
  };
}

/** Bundles `entry` (an absolute path) into `outfile`; dependencies resolve from the entry's folder up. */
export async function bundleWorker(entry: string, outfile: string, { minify = true, alias = {} }: BundleOptions = {}): Promise<string> {
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
    alias,
    plugins: [wasmBesideBundle(dirname(outfile)), bareBuiltinsAsNode()],
    minify,
    keepNames: false,
    sourcemap: false,
    logLevel: "warning",
  });
  return outfile;
}

/** Builds the bench Worker (scripts/bench/worker.ts) into `outDir` and returns its main module's path. */
export function buildBenchWorker(root: string, outDir: string, options: BundleOptions = {}): Promise<string> {
  const alias = workerAlias(join(root, "wrangler.toml"));
  return bundleWorker(join(root, "scripts/bench/worker.ts"), join(outDir, "worker.mjs"), { alias, ...options });
}
