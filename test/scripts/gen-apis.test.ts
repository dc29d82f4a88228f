/**
 * Build-time OpenAPI sources in scripts/gen-registry.ts: an apis/ file and its spec become
 * src/openapi-sources/apis.gen.ts, `--check` catches a stale copy (the spec, the apis file or
 * the converter changed) and never fetches, and a bad apis/ file fails with its path.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APIS_OUT_FILE, generateApis } from "../../scripts/gen-registry/apis.ts";
import { main } from "../../scripts/gen-registry.ts";

const REPO = new URL("../../", import.meta.url).pathname;
const roots: string[] = [];

/** A project root holding the converter's sources (CONVERTER_FILES too) and the pet shop example, and nothing else. */
function project(): string {
  const root = mkdtempSync(join(tmpdir(), "gen-apis-"));
  roots.push(root);
  cpSync(join(REPO, "src/openapi-sources"), join(root, "src/openapi-sources"), { recursive: true, filter: (path) => !path.endsWith(".gen.ts") });
  cpSync(join(REPO, "src/arguments/example-arguments.ts"), join(root, "src/arguments/example-arguments.ts"));
  cpSync(join(REPO, "apis"), join(root, "apis"), { recursive: true });
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe("build-time OpenAPI sources", () => {
  it("writes the committed module the repository holds, and --check then passes", async () => {
    const root = project();
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect(await main(["--root", root])).toBe(0);
    expect(readFileSync(join(root, APIS_OUT_FILE), "utf8")).toBe(readFileSync(join(REPO, APIS_OUT_FILE), "utf8"));
    expect(await main(["--check", "--root", root])).toBe(0);
  });

  it("fails --check when the spec changed since the module was generated", async () => {
    const root = project();
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(await main(["--root", root])).toBe(0);
    const spec = join(root, "apis/specs/petstore.yaml");
    writeFileSync(spec, readFileSync(spec, "utf8").replace("summary: List the pets for sale", "summary: List every pet"));
    expect(await main(["--check", "--root", root])).toBe(1);
    expect(errors.mock.calls.flat().join("\n")).toContain(`${APIS_OUT_FILE} is stale`);
  });

  it("never fetches a url spec under --check: a missing committed copy is an error naming the file", async () => {
    const root = project();
    writeFileSync(join(root, "apis/remote.ts"), 'export default { name: "remote", spec: { url: "https://specs.example/remote.json" } };\n');
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const result = await generateApis({ root, check: true, refreshSpecs: false });
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(result.errors).toEqual([expect.objectContaining({ file: "apis/remote.ts", message: expect.stringContaining("no committed copy in apis/specs/") })]);
  });

  it("uses a url spec's committed copy without fetching it again", async () => {
    const root = project();
    cpSync(join(root, "apis/specs/petstore.yaml"), join(root, "apis/specs/remote.yaml"));
    writeFileSync(join(root, "apis/remote.ts"), 'export default { name: "remote", spec: { url: "https://specs.example/remote.yaml" } };\n');
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const result = await generateApis({ root, check: false, refreshSpecs: false });
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(result.errors).toEqual([]);
    expect(result.content).toContain('"name":"remote"');
  });

  it("refuses an apis/ file whose configuration is invalid, naming the file and the field", async () => {
    const root = project();
    writeFileSync(join(root, "apis/broken.ts"), 'export default { name: "broken", spec: { file: "specs/petstore.yaml" }, timeout_ms: 5 };\n');
    const result = await generateApis({ root, check: true, refreshSpecs: false });
    expect(result.errors).toEqual([expect.objectContaining({ file: "apis/broken.ts", message: expect.stringContaining("timeout_ms") })]);
  });

  it("resolves a per_user source's endpoints from its spec's authorization-code flow, and refuses one with none", async () => {
    const root = project();
    const spec = join(root, "apis/specs/petstore.yaml");
    writeFileSync(
      join(root, "apis/specs/coded.yaml"),
      readFileSync(spec, "utf8").replace(
        "      flows:\n",
        "      flows:\n        authorizationCode:\n          authorizationUrl: /oauth/authorize\n          tokenUrl: https://petstore.example/oauth/token\n          scopes:\n            pets:read: Read pets\n",
      ),
    );
    const perUser = (name: string, file: string) =>
      `export default { name: "${name}", spec: { file: "specs/${file}" }, auth: { type: "per_user", client_id: "toolgate" } };\n`;
    writeFileSync(join(root, "apis/coded.ts"), perUser("coded", "coded.yaml"));
    const found = await generateApis({ root, check: false, refreshSpecs: false });
    expect(found.errors).toEqual([]);
    expect(found.content).toContain(
      'userOAuth: {"authorizationUrl":"https://petstore.example/oauth/authorize","tokenUrl":"https://petstore.example/oauth/token","scope":"pets:read"}',
    );

    // A file of its own: an apis/ file, once imported, is the module Node keeps.
    rmSync(join(root, "apis/coded.ts"));
    writeFileSync(join(root, "apis/bare.ts"), perUser("bare", "petstore.yaml"));
    const missing = await generateApis({ root, check: false, refreshSpecs: false });
    expect(missing.errors).toEqual([
      expect.objectContaining({ file: "apis/bare.ts", message: expect.stringContaining("per_user auth needs authorization_url and token_url") }),
    ]);
  });
});
