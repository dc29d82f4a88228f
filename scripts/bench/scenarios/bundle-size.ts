/** The production bundle's gzip size, measured by scripts/bundle-size.ts (also `npm run size`). */
import { measureBundleSize } from "../../bundle-size.ts";
import type { Scenario } from "../scenario.ts";

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
      // No target in the issue yet; the figure is tracked, not gated.
      checks: [],
    };
  },
};
