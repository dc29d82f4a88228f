/**
 * Webhook discovery: a file under webhooks/ is imported iff one of its top-level statements is a
 * bare `webhookRegistry.register(...)` call (the same rule as tools), and src/webhooks/webhooks.gen.ts is
 * written from them. The generator reads each webhook's name, scheme, secret name and toolsets
 * statically and fails with file:line on what would otherwise surface as a refused registration
 * at the first delivery: a duplicate or reserved name, an unknown scheme or toolset, a secret
 * name that is not an env var name.
 */
import type { Node } from "typescript";
import { listToolFiles, registerSpecs } from "./discover.ts";
import { locate, type ParsedFile, readString, readStringList, topLevelStringConsts } from "./parse.ts";
import { importPath, list } from "./render.ts";
import { formatLocation, type GenError, type Location, type StringRef } from "./types.ts";

// Same rules as src/webhooks/webhook-registry.ts (not imported: that pulls in zod).
const WEBHOOK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const SECRET_ENV_PATTERN = /^[A-Z][A-Z0-9_]{0,127}$/;
const VERIFY_SCHEMES = ["github", "stripe", "slack", "hmac"];
const RESERVED_NAMES = new Set(["deliveries", "events"]);
const ALL_TOOLSETS = new Set(["all", "*"]);

export const WEBHOOKS_OUT_FILE = "src/webhooks/webhooks.gen.ts";

/** One top-level `webhookRegistry.register({...})` as discovery reads it. */
export interface WebhookRegistration {
  name: StringRef;
  verify: StringRef;
  secretEnv: StringRef;
  toolsets: StringRef[];
  at: Location;
}

/** Candidate webhook modules under `webhooksDir` (same listing rules as tools). */
export const listWebhookFiles = (root: string, webhooksDir: string): string[] => listToolFiles(root, webhooksDir);

/** Reads the register calls of one file; anything not statically readable is an error. */
export function readWebhookRegistrations(file: ParsedFile): { registrations: WebhookRegistration[]; errors: GenError[] } {
  const registrations: WebhookRegistration[] = [];
  const errors: GenError[] = [];
  const consts = topLevelStringConsts(file.sf);
  const fail = (node: Node, message: string): void => {
    errors.push({ ...locate(file, node), message });
  };
  const usage =
    'webhookRegistry.register(...) must be passed an object literal ({ name: "...", verify: "...", secretEnv: "...", ... }) so discovery can read it.';
  for (const { call, props } of registerSpecs(file, "webhookRegistry", usage, fail)) {
    const required = (key: "name" | "verify" | "secretEnv", example: string): StringRef | undefined => {
      const value = props.get(key);
      const ref = value === undefined ? undefined : readString(file, value, consts);
      if (ref === undefined)
        fail(value ?? call, `webhookRegistry.register: \`${key}\` must be a string literal (or a top-level const bound to one), e.g. ${key}: "${example}".`);
      return ref;
    };
    const name = required("name", "github");
    const verify = required("verify", "github");
    const secretEnv = required("secretEnv", "HOOK_GITHUB_SECRET");
    const listNode = props.get("toolsets");
    const toolsets =
      listNode === undefined
        ? []
        : readStringList(file, listNode, consts, fail, {
            notList: 'webhookRegistry.register: `toolsets` must be an array literal of toolset names, e.g. toolsets: ["web"].',
            notString: "webhookRegistry.register: each `toolsets` entry must be a string literal toolset name.",
          });
    if (name !== undefined && verify !== undefined && secretEnv !== undefined)
      registrations.push({ name, verify, secretEnv, toolsets, at: locate(file, call) });
  }
  return { registrations, errors };
}

/**
 * The checks across every webhook file. `toolsetNames` are the built-in toolsets (static and
 * registered by tools): a webhook's power is fixed in code, so custom toolsets, which change at run
 * time through the API, are refused here.
 */
export function checkWebhooks(registrations: readonly WebhookRegistration[], toolsetNames: ReadonlySet<string>): GenError[] {
  const errors: GenError[] = [];
  const fail = (ref: StringRef, message: string): void => {
    errors.push({ ...ref.at, message });
  };
  const seen = new Map<string, WebhookRegistration>();
  for (const reg of registrations) {
    const name = reg.name.value;
    if (!WEBHOOK_NAME_PATTERN.test(name))
      fail(reg.name, `"${name}" is not a valid webhook name: it is a URL segment and must match ${WEBHOOK_NAME_PATTERN.source}.`);
    if (RESERVED_NAMES.has(name)) fail(reg.name, `"${name}" is reserved: /v1/hooks/${name} is a route of its own; pick another name.`);
    const first = seen.get(name);
    if (first !== undefined)
      fail(
        reg.name,
        `webhook "${name}" is registered twice: ${formatLocation(first.name.at)} and ${formatLocation(reg.name.at)}; webhook names must be unique.`,
      );
    else seen.set(name, reg);
    if (!VERIFY_SCHEMES.includes(reg.verify.value))
      fail(reg.verify, `webhook "${name}": verify "${reg.verify.value}" is not a scheme; use one of ${VERIFY_SCHEMES.join(", ")}.`);
    if (!SECRET_ENV_PATTERN.test(reg.secretEnv.value))
      fail(reg.secretEnv, `webhook "${name}": secretEnv "${reg.secretEnv.value}" must be an env var name such as HOOK_GITHUB_SECRET.`);
    for (const toolset of reg.toolsets) {
      if (!toolsetNames.has(toolset.value) && !ALL_TOOLSETS.has(toolset.value)) {
        fail(
          toolset,
          `webhook "${name}" lists toolset "${toolset.value}", which is not a built-in toolset (known: ${[...toolsetNames].sort().join(", ") || "none"}); custom toolsets cannot be used by webhooks.`,
        );
      }
    }
  }
  return errors;
}

/** The generated module: one import per webhook module, and a manifest. Deterministic. */
export function renderWebhooksModule(outFile: string, modules: readonly string[], registrations: readonly WebhookRegistration[]): string {
  const fromOut = (path: string): string => importPath(outFile, path);
  const str = (value: string): string => JSON.stringify(value);
  const webhooks = [...registrations].sort((a, b) => (a.name.value < b.name.value ? -1 : a.name.value > b.name.value ? 1 : 0));
  return [
    "// Generated by scripts/gen-registry.ts from webhooks/**/*.ts. Do not edit: run `npm run gen`.",
    "// Importing a module runs its top-level webhookRegistry.register(...) calls. A file under webhooks/ is",
    "// listed iff it has such a call as a top-level statement; helper modules are not.",
    ...modules.map((path) => `import ${str(fromOut(path))};`),
    "",
    "/** The webhook modules imported above, in import order (project-relative paths). */",
    `export const WEBHOOK_MODULES = ${list(modules.map(str))} as const;`,
    "",
    "/** The webhooks the registry holds after the imports, sorted by name. */",
    `export const DISCOVERED_WEBHOOKS = ${list(
      webhooks.map(
        (reg) =>
          `{ name: ${str(reg.name.value)}, verify: ${str(reg.verify.value)}, secretEnv: ${str(reg.secretEnv.value)}, toolsets: [${reg.toolsets.map((t) => str(t.value)).join(", ")}], file: ${str(reg.at.file)} }`,
      ),
    )} as const;`,
    "",
  ].join("\n");
}
