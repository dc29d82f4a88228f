/**
 * Serves the bench Worker (scripts/bench/worker.ts) as the bench does, for a test that drives it
 * from another process: prints one JSON line `{"origin", "adminToken"}` once it answers, and
 * stops when its standard input closes or it is sent SIGTERM. The hostile suite starts it as a
 * child process because Miniflare run inside vitest's module loader failed to start the Worker,
 * while the same bundle starts under plain Node.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchWorker } from "../bench/build-worker.ts";
import { serveWorker } from "../bench/serve.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// Under the project, as the bench's own build: Miniflare names the modules by paths relative to
// the working directory, and workerd refuses one that climbs out of it with "..".
await mkdir(join(root, ".bench"), { recursive: true });
const outDir = await mkdtemp(join(root, ".bench", "hostile-"));
// The example OpenAPI source's secret, so its tools are available and their worst inputs reach
// the pet shop the bench Worker answers itself (scripts/hostile/pet-shop.ts).
const worker = await serveWorker(await buildBenchWorker(root, outDir), join(root, "wrangler.toml"), { vars: { PETSTORE_TOKEN: "hostile-suite" } });

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await worker.dispose();
  await rm(outDir, { recursive: true, force: true });
  process.exit(0);
}
process.on("SIGTERM", () => void stop());
process.stdin.on("end", () => void stop());
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ origin: worker.url.origin, adminToken: worker.adminToken })}\n`);
