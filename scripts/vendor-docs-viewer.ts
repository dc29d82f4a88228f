/**
 * Vendors the API reference viewer `/docs` serves: the standalone browser bundle of a pinned
 * `@scalar/api-reference`, fetched with `npm pack` (the registry's own integrity check), copied to
 * assets/docs/viewer/ (Workers static assets, outside the Worker's bundle) and its SRI hash
 * printed for src/http/docs/docs-viewer.ts. The copy is committed, so the Worker never loads the
 * viewer from a CDN and nothing changes until someone runs this with a new version.
 *
 * @example
 * ```sh
 * npm run vendor:docs-viewer -- 1.72.1
 * ```
 * then set DOCS_VIEWER_VERSION and DOCS_VIEWER_INTEGRITY to what it prints, and delete the old file.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = "@scalar/api-reference";
const BUNDLE = "package/dist/browser/standalone.js";

const version = process.argv[2];
if (version === undefined || !/^\d+\.\d+\.\d+$/.test(version)) {
  console.error("usage: node scripts/vendor-docs-viewer.ts <exact version, e.g. 1.72.1>");
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "toolgate-viewer-"));
try {
  const tarball =
    execFileSync("npm", ["pack", `${PACKAGE}@${version}`, "--pack-destination", work, "--silent"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .pop() ?? "";
  execFileSync("tar", ["-xzf", join(work, tarball), "-C", work, BUNDLE]);
  const bytes = readFileSync(join(work, BUNDLE));
  const out = join(root, "assets/docs/viewer", `scalar-api-reference-${version}.js`);
  writeFileSync(out, bytes);
  console.log(`wrote ${out} (${bytes.byteLength} bytes)`);
  console.log(`DOCS_VIEWER_VERSION = "${version}"`);
  console.log(`DOCS_VIEWER_INTEGRITY = "sha384-${createHash("sha384").update(bytes).digest("base64")}"`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
