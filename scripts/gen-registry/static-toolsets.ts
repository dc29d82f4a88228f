/**
 * Reads `STATIC_TOOLSETS` out of src/toolsets/static-toolsets.ts with the parser, without
 * importing it: the generator must run before anything else type-checks or bundles, and an
 * import would pull the Worker's module graph into a build script.
 */
import type { Expression, Node, ObjectLiteralExpression, SourceFile } from "typescript";
import { locate, type ParsedFile, propertyName, readString, topLevelStringConsts, unwrap } from "./parse.ts";
import type { AliasDecl, GenError, StaticToolsetDecl, StringRef } from "./types.ts";
import { ts } from "./typescript.ts";

const EXPORT_NAME = "STATIC_TOOLSETS";
const SHAPE_HINT = `${EXPORT_NAME} must be an object literal of { description: "...", tools: ["tool"], includes: ["toolset"] } entries`;
const ALIASES_HINT = '`aliases` must be an object literal keyed by tool, e.g. aliases: { web_search: { name: "search", description: "..." } }';

/** The declared static toolsets, in source order, or errors at the nodes that are not literal. */
export function readStaticToolsets(file: ParsedFile): { toolsets: StaticToolsetDecl[]; errors: GenError[] } {
  const errors: GenError[] = [];
  const toolsets: StaticToolsetDecl[] = [];
  const consts = topLevelStringConsts(file.sf);
  const fail = (node: Node, message: string): void => {
    errors.push({ ...locate(file, node), message });
  };

  const initializer = findExportedConst(file.sf);
  if (initializer === undefined) {
    errors.push({ file: file.path, line: 1, column: 1, message: `no top-level \`export const ${EXPORT_NAME} = {...}\` found; ${SHAPE_HINT}.` });
    return { toolsets, errors };
  }
  const table = unwrap(initializer);
  if (!ts.isObjectLiteralExpression(table)) {
    fail(initializer, `${SHAPE_HINT}, written inline so the generator can read it.`);
    return { toolsets, errors };
  }

  const readList = (entry: ObjectLiteralExpression, key: "tools" | "includes"): StringRef[] => {
    const prop = entry.properties.find((p) => ts.isPropertyAssignment(p) && propertyName(p.name) === key);
    if (prop === undefined || !ts.isPropertyAssignment(prop)) return [];
    const list = unwrap(prop.initializer);
    if (!ts.isArrayLiteralExpression(list)) {
      fail(prop.initializer, `\`${key}\` must be an array literal of names, e.g. ${key}: ["${key === "tools" ? "fetch_url" : "web"}"].`);
      return [];
    }
    const refs: StringRef[] = [];
    for (const element of list.elements) {
      const ref = readString(file, element, consts);
      if (ref === undefined) fail(element, `each \`${key}\` entry must be a string literal.`);
      else refs.push(ref);
    }
    return refs;
  };

  /** The `key: { ... }` entries of an object literal; any other entry fails with `hint`. */
  const objectEntries = (literal: ObjectLiteralExpression, hint: string): { key: StringRef; value: ObjectLiteralExpression }[] => {
    const entries: { key: StringRef; value: ObjectLiteralExpression }[] = [];
    for (const prop of literal.properties) {
      const key = ts.isPropertyAssignment(prop) ? propertyName(prop.name) : undefined;
      const value = ts.isPropertyAssignment(prop) ? unwrap(prop.initializer) : undefined;
      if (!ts.isPropertyAssignment(prop) || key === undefined || value === undefined || !ts.isObjectLiteralExpression(value)) fail(prop, hint);
      else entries.push({ key: { value: key, at: locate(file, prop.name) }, value });
    }
    return entries;
  };
  const property = (entry: ObjectLiteralExpression, key: string): Expression | undefined => {
    const prop = entry.properties.find((p) => ts.isPropertyAssignment(p) && propertyName(p.name) === key);
    return prop !== undefined && ts.isPropertyAssignment(prop) ? prop.initializer : undefined;
  };
  const readText = (entry: ObjectLiteralExpression, key: "name" | "description", tool: string): StringRef | undefined => {
    const node = property(entry, key);
    if (node === undefined) return undefined;
    const ref = readString(file, node, consts);
    if (ref === undefined) fail(node, `aliases.${tool}.${key} must be a string literal.`);
    return ref;
  };
  const readAliases = (entry: ObjectLiteralExpression): AliasDecl[] => {
    const node = property(entry, "aliases");
    if (node === undefined) return [];
    const aliases = unwrap(node);
    if (!ts.isObjectLiteralExpression(aliases)) {
      fail(node, `${ALIASES_HINT}.`);
      return [];
    }
    return objectEntries(aliases, `${ALIASES_HINT}; this entry is not \`tool: { ... }\`.`).map(({ key, value }) => ({
      tool: key,
      name: readText(value, "name", key.value),
      description: readText(value, "description", key.value),
    }));
  };

  for (const { key, value } of objectEntries(table, `${SHAPE_HINT}; this entry is not \`name: { ... }\`.`)) {
    toolsets.push({ name: key, tools: readList(value, "tools"), includes: readList(value, "includes"), aliases: readAliases(value) });
  }
  return { toolsets, errors };
}

function findExportedConst(sf: SourceFile): Expression | undefined {
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === EXPORT_NAME) return declaration.initializer;
    }
  }
  return undefined;
}
