/**
 * The MCP servers toolgate's /mcp is measured against (issue 6), and the bare Hono route they
 * are all measured by: bench/peers/*.ts, with their packages pinned in bench/package.json and
 * bench/package-lock.json (apart from the root's, so the Worker's dependencies never change for
 * a benchmark). `npm ci --prefix bench` installs them when they are missing or older than the
 * lockfile, with the root's Node 22; each is bundled by bundleWorker, like the bench Worker.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { bundleWorker } from "./build-worker.ts";
import type { PeerWorker } from "./serve.ts";

/** Worker names, which are also the file names in bench/peers/. */
export const BARE_PEER = "bare";
export const HONO_MCP_PEER = "hono-mcp";
export const AGENTS_MCP_PEER = "agents-mcp";
export const PEERS = [BARE_PEER, HONO_MCP_PEER, AGENTS_MCP_PEER] as const;

/**
 * `scriptPath` is what the bench serves: the peer behind the full collection that follows every
 * measured round (collect-garbage-route.ts). `ownScriptPath` is the peer's own bundle, which the
 * start-up scenario runs and `bytes` and `gzipBytes` measure.
 */
export interface BuiltPeer extends PeerWorker {
  ownScriptPath: string;
  bytes: number;
  gzipBytes: number;
}

/** Installs bench/'s packages unless node_modules matches the lockfile already. */
export function ensurePeersInstalled(root: string, progress: (message: string) => void): void {
  const dir = join(root, "bench");
  const installed = join(dir, "node_modules/.package-lock.json");
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(dir, "package-lock.json")).mtimeMs) return;
  progress("installing the MCP peers (npm ci --prefix bench)");
  // node_modules/.bin first, so npm (and any install script) runs on the root's Node 22.
  const PATH = [join(root, "node_modules/.bin"), dirname(process.execPath), process.env.PATH ?? ""].join(delimiter);
  // --prefer-offline: the lockfile pins every version and its integrity, so a tarball already in
  // npm's cache is the one the registry would send; skipping the revalidation round trips took
  // the install from 40-50 s to about 30 s on the shared 2-core machine.
  const run = spawnSync("npm", ["ci", "--prefix", dir, "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PATH },
    timeout: 300_000,
  });
  if (run.status !== 0) throw new Error(`bench: npm ci --prefix bench failed (exit ${String(run.status ?? run.signal)}):\n${run.stdout}\n${run.stderr}`);
}

/**
 * Bundles every peer into `outDir` twice, as itself and as served (BuiltPeer), and measures its
 * own module (gzip at the default level).
 */
export async function buildPeers(root: string, outDir: string): Promise<BuiltPeer[]> {
  const built: BuiltPeer[] = [];
  mkdirSync(join(outDir, "peers"), { recursive: true });
  for (const name of PEERS) {
    const peerEntry = join(root, "bench/peers", `${name}.ts`);
    const ownScriptPath = await bundleWorker(peerEntry, join(outDir, "peers", `${name}.mjs`));
    // Every peer's default export has fetch(request, env, ctx): a Hono app or a handler object.
    const servedEntry = join(outDir, "peers", `${name}.served.mjs`);
    writeFileSync(
      servedEntry,
      [
        "// Written by scripts/bench/peers.ts: do not edit.",
        `import peer from ${JSON.stringify(peerEntry)};`,
        `import { serveCollectGarbage } from ${JSON.stringify(join(root, "scripts/bench/collect-garbage-route.ts"))};`,
        "export default { fetch: (request, env, ctx) => serveCollectGarbage(request) ?? peer.fetch(request, env, ctx) };",
        "",
      ].join("\n"),
    );
    const scriptPath = await bundleWorker(servedEntry, join(outDir, "peers", `${name}.served.bundle.mjs`));
    const content = readFileSync(ownScriptPath);
    built.push({ name, scriptPath, ownScriptPath, bytes: content.byteLength, gzipBytes: gzipSync(content).byteLength });
  }
  return built;
}
