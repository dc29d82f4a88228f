/**
 * The production bundle's gzip size, measured by scripts/bundle-size.ts (also `npm run size`).
 * Target (issue 33): the upload at most 1 MiB gzip. Its ratio to a peer's bundle is no longer a
 * target: the peer is a bare server, and the startup scenario measures what a bundle costs a
 * user, its start-up.
 */
import { measureBundleSize } from "../../bundle-size.ts";
import type { Scenario } from "../scenario.ts";

const MAX_UPLOAD_GZIP_KIB = 1024;

export const bundleSize: Scenario = {
  id: "bundle-size",
  title: "Production bundle (wrangler deploy --dry-run --outdir dist, real wrangler.toml)",
  async run(ctx) {
    const size = measureBundleSize(ctx.root);
    const row = (label: string, bytes: number, gzipBytes: number) => ({ label, values: { kib: bytes / 1024, gzipKib: gzipBytes / 1024 } });
    return {
      method: `gzip (default level) of the emitted modules; wrangler reported ${size.wranglerReport ?? "nothing"}`,
      columns: [
        { key: "kib", header: "KiB", digits: 1 },
        { key: "gzipKib", header: "gzip KiB", digits: 1 },
      ],
      rows: [...size.modules.map((m) => row(`${size.outDir}/${m.name}`, m.bytes, m.gzipBytes)), row("total upload", size.totalBytes, size.totalGzipBytes)],
      checks: [
        {
          label: "production upload, gzip",
          target: `<= ${MAX_UPLOAD_GZIP_KIB} KiB`,
          actual: `${(size.totalGzipBytes / 1024).toFixed(1)} KiB`,
          pass: size.totalGzipBytes <= MAX_UPLOAD_GZIP_KIB * 1024,
        },
      ],
    };
  },
};
