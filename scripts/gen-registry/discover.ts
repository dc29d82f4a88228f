/**
 * Tool discovery, after Hermes' `_module_registers_tools` (reference §2.8): a file under tools/
 * is imported iff one of its top-level statements is a bare `registry.register(...)` call.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { CallExpression, Expression, Node, SourceFile } from "typescript";
import { locate, objectProps, type ParsedFile, readString, readStringList, topLevelStringConsts, unwrap } from "./parse.ts";
import type { GenError, Registration, StringRef } from "./types.ts";
import { ts } from "./typescript.ts";

/**
 * Every candidate tool module under `toolsDir`, project-relative with '/' separators, sorted by
 * code unit so the import order (and so which same-toolset duplicate wins) is the same on
 * every machine. A missing folder has no tools.
 */
export function listToolFiles(root: string, toolsDir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(root, toolsDir), { recursive: true, encoding: "utf8" });
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
    throw error;
  }
  const prefix = toolsDir.replaceAll("\\", "/").replace(/^\.\//, "").replace(/\/+$/, "");
  return entries
    .map((entry) => `${prefix}/${entry.replaceAll("\\", "/")}`)
    .filter((path) => path.endsWith(".ts") && !path.endsWith(".d.ts") && !path.endsWith(".test.ts"))
    .sort();
}

/**
 * The top-level `registry.register(...)` calls of a file. Only a bare expression statement
 * counts: a call inside a function, block, loop or class may never run, and in
 * `const x = registry.register()`, `void ...` or `await ...` the call is part of some other
 * expression, so (as in the original) discovery does not vouch for it. Another receiver
 * (`reg.register`) is some other object.
 */
export function findRegisterCalls(sf: SourceFile, receiver = "registry"): CallExpression[] {
  const calls: CallExpression[] = [];
  for (const statement of sf.statements) {
    if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) continue;
    const callee = statement.expression.expression;
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === receiver && callee.name.text === "register") {
      calls.push(statement.expression);
    }
  }
  return calls;
}

/**
 * The properties of each top-level `<receiver>.register({...})` call's object literal, with the
 * call. A call passed anything else is reported with `usage`, since discovery could not check it.
 */
export function registerSpecs(
  file: ParsedFile,
  receiver: string,
  usage: string,
  fail: (node: Node, message: string) => void,
): { call: CallExpression; props: Map<string, Expression> }[] {
  const specs: { call: CallExpression; props: Map<string, Expression> }[] = [];
  for (const call of findRegisterCalls(file.sf, receiver)) {
    const [arg] = call.arguments;
    const spec = arg === undefined ? undefined : unwrap(arg);
    if (spec === undefined || !ts.isObjectLiteralExpression(spec)) fail(call, usage);
    else specs.push({ call, props: objectProps(spec) });
  }
  return specs;
}

/**
 * Reads name, toolset, dependsOn and override out of each top-level register call, and refuses a
 * schema given built rather than as a function. Anything the generator cannot evaluate
 * statically is an error rather than a guess, because the checks (duplicates, unknown toolsets,
 * dependency cycles) would otherwise silently pass.
 */
export function readRegistrations(file: ParsedFile): { registrations: Registration[]; errors: GenError[] } {
  const registrations: Registration[] = [];
  const errors: GenError[] = [];
  const consts = topLevelStringConsts(file.sf);
  const fail = (node: Node, message: string): void => {
    errors.push({ ...locate(file, node), message });
  };

  for (const call of findRegisterCalls(file.sf)) {
    const [arg] = call.arguments;
    const spec = arg === undefined ? undefined : unwrap(arg);
    if (spec === undefined || !ts.isObjectLiteralExpression(spec)) {
      fail(call, 'registry.register(...) must be passed an object literal ({ name: "...", toolset: "...", ... }) so discovery can read it.');
      continue;
    }
    const props = objectProps(spec);

    const readRequired = (key: "name" | "toolset"): StringRef | undefined => {
      const value = props.get(key);
      const ref = value === undefined ? undefined : readString(file, value, consts);
      if (ref === undefined) {
        fail(
          value ?? call,
          `registry.register: \`${key}\` must be a string literal (or a top-level const bound to one) so discovery can check it, e.g. ${key}: "${key === "name" ? "fetch_url" : "web"}".`,
        );
      }
      return ref;
    };
    const name = readRequired("name");
    const toolset = readRequired("toolset");

    const dependsNode = props.get("dependsOn");
    const dependsOn =
      dependsNode === undefined
        ? []
        : readStringList(file, dependsNode, consts, fail, {
            notList: 'registry.register: `dependsOn` must be an array literal of tool names, e.g. dependsOn: ["fetch_url"].',
            notString: "registry.register: each `dependsOn` entry must be a string literal tool name.",
          });

    // A built schema (a call such as z.object(...)) is built by every cold isolate's start-up,
    // which imports every tool file (issue 33); a function is built at the tool's first use.
    const schemaNode = props.get("schema");
    if (schemaNode !== undefined && ts.isCallExpression(unwrap(schemaNode))) {
      fail(
        schemaNode,
        "registry.register: give `schema` as a function, schema: () => z.object({...}), so importing the tool builds no zod schema; the registry builds it at the tool's first use.",
      );
    }

    const overrideNode = props.get("override");
    const override = overrideNode !== undefined && unwrap(overrideNode).kind === ts.SyntaxKind.TrueKeyword;

    if (name !== undefined && toolset !== undefined) {
      registrations.push({ name, toolset, dependsOn, override, at: locate(file, call) });
    }
  }
  return { registrations, errors };
}
