/**
 * Build-time OpenAPI sources: each file apis/<name>.ts default-exports one source's
 * configuration (src/openapi-sources/source-config.ts). The generator validates it, reads its
 * spec, converts it as runtime sources are converted (convertSpec), and writes
 * src/openapi-sources/apis.gen.ts, which the Worker registers at start.
 *
 * A spec given by `url` is fetched once and committed under apis/specs/<name>.<json|yaml>; it is
 * fetched again only when that copy is missing or `--refresh-specs` asks, and never by `--check`
 * (CI has no network but npm), which fails instead when the copy is missing. The generated
 * module records a hash of everything it was made from (the apis files, the specs, the
 * converter's sources), so an ordinary `npm run gen` with nothing changed skips conversion.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BuildTimeSource } from "../../src/openapi-sources/build-time-sources.ts";
import { withCheckedExample } from "../../src/openapi-sources/checked-example.ts";
import { convertSpec } from "../../src/openapi-sources/convert-spec.ts";
import { loadSpec } from "../../src/openapi-sources/load-spec.ts";
import { type OpenApiSourceConfig, openApiSourceConfigSchema } from "../../src/openapi-sources/source-config.ts";
import { resolveUserOAuth, specCodeFlow } from "../../src/openapi-sources/user-oauth.ts";
import type { GenError } from "./types.ts";

export const APIS_OUT_FILE = "src/openapi-sources/apis.gen.ts";
const APIS_DIR = "apis";
const SPECS_DIR = "apis/specs";
/** The converter's own sources: a change to them changes what the same spec converts to. */
const CONVERTER_DIR = "src/openapi-sources";
/** The line of the generated module that records the inputs' hash. */
const HASH_MARK = "// inputs-sha256: ";

export interface ApisOptions {
  root: string;
  /** Compare only; never fetch, never reuse the recorded hash. */
  check: boolean;
  /** Fetch every `url` spec again, even those already committed. */
  refreshSpecs: boolean;
}

export interface ApisResult {
  outFile: string;
  content: string;
  /** Committed spec copies fetched in this run, to be written beside the module. */
  fetched: { path: string; text: string }[];
  sources: number;
  errors: GenError[];
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** apis/*.ts, sorted; helpers may live in subfolders (specs/ holds the specs). */
function listApiFiles(root: string): string[] {
  if (!existsSync(join(root, APIS_DIR))) return [];
  return readdirSync(join(root, APIS_DIR), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => `${APIS_DIR}/${entry.name}`)
    .sort();
}

/** Modules outside CONVERTER_DIR whose output the generated operations hold (each operation's example). */
const CONVERTER_FILES = ["src/arguments/example-arguments.ts"];

function converterText(root: string): string {
  if (!existsSync(join(root, CONVERTER_DIR))) return "";
  const own = readdirSync(join(root, CONVERTER_DIR))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".gen.ts"))
    .sort()
    .map((name) => join(CONVERTER_DIR, name));
  return [...own, ...CONVERTER_FILES.filter((file) => existsSync(join(root, file)))].map((file) => readFileSync(join(root, file), "utf8")).join("\n");
}

/** The committed copy of a `url` spec, by the name of its source. */
function committedCopy(root: string, name: string): string | undefined {
  for (const ext of ["json", "yaml"]) if (existsSync(join(root, SPECS_DIR, `${name}.${ext}`))) return `${SPECS_DIR}/${name}.${ext}`;
  return undefined;
}

/**
 * The module's text for the apis/ folder, converting only when the inputs changed (or `check`).
 */
export async function generateApis({ root, check, refreshSpecs }: ApisOptions): Promise<ApisResult> {
  const errors: GenError[] = [];
  const fetched: ApisResult["fetched"] = [];
  const fail = (file: string, message: string): void => {
    errors.push({ file, line: 1, column: 1, message });
  };
  const inputs: { file: string; text: string; spec: string; specPath: string; config: OpenApiSourceConfig }[] = [];
  for (const file of listApiFiles(root)) {
    const module = (await import(pathToFileURL(join(root, file)).href)) as { default?: unknown };
    const parsed = openApiSourceConfigSchema().safeParse(module.default);
    if (!parsed.success) {
      fail(
        file,
        `its default export is not a source configuration: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ")}`,
      );
      continue;
    }
    const config = parsed.data;
    if (`${APIS_DIR}/${config.name}.ts` !== file) fail(file, `source "${config.name}" must live in ${APIS_DIR}/${config.name}.ts, so one file is one source`);
    let specPath: string;
    if ("file" in config.spec) specPath = `${APIS_DIR}/${config.spec.file}`;
    else {
      const copy = committedCopy(root, config.name);
      if (copy !== undefined && !refreshSpecs) specPath = copy;
      else if (check) {
        fail(file, `its spec ${config.spec.url} has no committed copy in ${SPECS_DIR}/; run npm run gen once with network access and commit the copy`);
        continue;
      } else {
        const response = await fetch(config.spec.url, { signal: AbortSignal.timeout(60_000) });
        if (!response.ok) {
          fail(file, `fetching its spec ${config.spec.url} answered HTTP ${response.status}`);
          continue;
        }
        const text = await response.text();
        specPath = `${SPECS_DIR}/${config.name}.${text.trimStart().startsWith("{") ? "json" : "yaml"}`;
        fetched.push({ path: specPath, text });
        writeFileSync(join(root, specPath), text);
      }
    }
    if (!existsSync(join(root, specPath))) {
      fail(file, `its spec file ${specPath} does not exist`);
      continue;
    }
    inputs.push({ file, text: readFileSync(join(root, file), "utf8"), spec: readFileSync(join(root, specPath), "utf8"), specPath, config });
  }
  const hash = sha256(JSON.stringify([inputs.map(({ file, text, specPath, spec }) => [file, text, specPath, spec]), converterText(root)]));
  const current = existsSync(join(root, APIS_OUT_FILE)) ? readFileSync(join(root, APIS_OUT_FILE), "utf8") : undefined;
  if (!check && errors.length === 0 && current?.includes(`${HASH_MARK}${hash}\n`))
    return { outFile: APIS_OUT_FILE, content: current, fetched, sources: inputs.length, errors };

  const sources: BuildTimeSource[] = [];
  for (const input of inputs) {
    const loaded = await loadSpec(input.spec);
    if (!loaded.ok) {
      fail(input.file, `its spec ${input.specPath} cannot be read: ${loaded.reason}`);
      continue;
    }
    const converted = await convertSpec(loaded.doc, {
      source: input.config.name,
      ...(input.config.include === undefined ? {} : { include: input.config.include }),
      exclude: input.config.exclude,
    });
    if (!converted.ok) {
      fail(input.file, `its spec ${input.specPath} cannot be converted: ${converted.reason}`);
      continue;
    }
    const baseUrl = input.config.base_url ?? converted.spec.servers.find((server) => /^https?:\/\//.test(server));
    if (baseUrl === undefined) {
      fail(input.file, "the spec names no absolute server URL; give base_url");
      continue;
    }
    // A per_user source's endpoints, the configuration's over the spec's, as a runtime import resolves them.
    const userOAuth = input.config.auth.type === "per_user" ? resolveUserOAuth(input.config.auth, specCodeFlow(loaded.doc), baseUrl) : undefined;
    if (userOAuth?.ok === false) {
      fail(input.file, userOAuth.reason);
      continue;
    }
    sources.push({
      config: input.config,
      baseUrl,
      ...(userOAuth === undefined ? {} : { userOAuth: userOAuth.endpoints }),
      specSha256: sha256(input.spec),
      // Checked here, in Node, where the cost does not matter: run-time conversion keeps examples
      // unchecked (a validator per operation tripled a large spec's conversion).
      operations: JSON.stringify(await Promise.all(converted.spec.operations.map(withCheckedExample))),
      problems: converted.spec.problems,
    });
  }
  return { outFile: APIS_OUT_FILE, content: renderApisModule(hash, sources), fetched, sources: sources.length, errors };
}

/** The generated module: data only, one JSON string of operations per source. Deterministic. */
export function renderApisModule(hash: string, sources: readonly BuildTimeSource[]): string {
  const str = (value: unknown): string => JSON.stringify(value);
  return [
    "// Generated by scripts/gen-registry.ts from apis/*.ts and their specs. Do not edit: run `npm run gen`.",
    "// Each source's operations are a JSON string: JSON.parse reads it faster than the same data as literals.",
    `${HASH_MARK}${hash}`,
    'import type { BuildTimeSource } from "./build-time-sources.ts";',
    "",
    "export const API_SOURCES: readonly BuildTimeSource[] = [",
    ...sources.map(
      (source) =>
        `  {\n    config: ${str(source.config)},\n    baseUrl: ${str(source.baseUrl)},\n${source.userOAuth === undefined ? "" : `    userOAuth: ${str(source.userOAuth)},\n`}    specSha256: ${str(source.specSha256)},\n    problems: ${str(source.problems)},\n    operations: ${str(source.operations)},\n  },`,
    ),
    "];",
    "",
  ].join("\n");
}
