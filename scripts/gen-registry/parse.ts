/**
 * Parsing for the registry generator: TypeScript source files plus their syntax errors, and the
 * small static evaluator that reads string literals out of them.
 */
import type { CompilerHost, CompilerOptions, Expression, Node, ObjectLiteralExpression, PropertyName, SourceFile } from "typescript";
import type { GenError, Location, StringRef } from "./types.ts";
import { ts } from "./typescript.ts";

/** A parsed file and its project-relative path. */
export interface ParsedFile {
  path: string;
  sf: SourceFile;
}

/**
 * Parses each file once and returns the syntax errors of all of them.
 *
 * The parser keeps its diagnostics on an internal field; the public way to read them is
 * `Program.getSyntacticDiagnostics`. A program whose host hands back the source files we already
 * parsed, with no lib and no module resolution, costs a few milliseconds and nothing is parsed
 * twice (the same setup `ts.transpileModule` uses, minus the emit).
 */
export function parseFiles(inputs: readonly { path: string; text: string }[]): { files: ParsedFile[]; errors: GenError[] } {
  const files = inputs.map(({ path, text }) => ({
    path,
    sf: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS),
  }));
  if (files.length === 0) return { files, errors: [] };
  const byPath = new Map(files.map((file) => [file.path, file.sf]));
  const options: CompilerOptions = { noLib: true, noResolve: true, noEmit: true, types: [] };
  const host: CompilerHost = {
    getSourceFile: (fileName) => byPath.get(fileName),
    getDefaultLibFileName: () => "lib.d.ts",
    writeFile: () => undefined,
    getCurrentDirectory: () => "",
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
    fileExists: (fileName) => byPath.has(fileName),
    readFile: () => undefined,
  };
  const program = ts.createProgram({ rootNames: [...byPath.keys()], options, host });
  const errors: GenError[] = [];
  for (const { path, sf } of files) {
    for (const diagnostic of program.getSyntacticDiagnostics(sf)) {
      const { line, character } = sf.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      errors.push({
        file: path,
        line: line + 1,
        column: character + 1,
        message: `syntax error: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`,
      });
    }
  }
  return { files, errors };
}

/** Where a node starts (after leading trivia), 1-based. */
export function locate(file: ParsedFile, node: Node): Location {
  const { line, character } = file.sf.getLineAndCharacterOfPosition(node.getStart(file.sf));
  return { file: file.path, line: line + 1, column: character + 1 };
}

/** Strips `( )`, `as const` and `satisfies T`, which change types but not the value. */
export function unwrap(node: Expression): Expression {
  let current = node;
  while (ts.isParenthesizedExpression(current) || ts.isAsExpression(current) || ts.isSatisfiesExpression(current)) {
    current = current.expression;
  }
  return current;
}

/** The top-level `const NAME = "literal"` bindings of a file, which register calls may use. */
export function topLevelStringConsts(sf: SourceFile): Map<string, string> {
  const consts = new Map<string, string>();
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    // `let` and `var` can be reassigned before the call runs, so only `const` is trusted.
    if ((statement.declarationList.flags & ts.NodeFlags.Const) === 0) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.initializer === undefined) continue;
      const value = unwrap(declaration.initializer);
      if (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) {
        consts.set(declaration.name.text, value.text);
      }
    }
  }
  return consts;
}

/** Reads a string literal, or an identifier bound to one in `consts`; undefined otherwise. */
export function readString(file: ParsedFile, node: Expression, consts: ReadonlyMap<string, string>): StringRef | undefined {
  const value = unwrap(node);
  if (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)) {
    return { value: value.text, at: locate(file, value) };
  }
  if (ts.isIdentifier(value)) {
    const bound = consts.get(value.text);
    if (bound !== undefined) return { value: bound, at: locate(file, value) };
  }
  return undefined;
}

/** The text of a property name written as an identifier or a string literal. */
export function propertyName(name: PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  return undefined;
}

/** The `key: value` and shorthand properties of an object literal, by name. */
export function objectProps(spec: ObjectLiteralExpression): Map<string, Expression> {
  const props = new Map<string, Expression>();
  for (const prop of spec.properties) {
    if (ts.isPropertyAssignment(prop)) {
      const key = propertyName(prop.name);
      if (key !== undefined) props.set(key, prop.initializer);
    } else if (ts.isShorthandPropertyAssignment(prop)) {
      props.set(prop.name.text, prop.name);
    }
  }
  return props;
}

/**
 * An array literal of strings; `fail` is told about the list when it is not a literal
 * (`notList`) and about each entry that is not a string (`notString`).
 */
export function readStringList(
  file: ParsedFile,
  node: Expression,
  consts: ReadonlyMap<string, string>,
  fail: (node: Node, message: string) => void,
  messages: { notList: string; notString: string },
): StringRef[] {
  const list = unwrap(node);
  if (!ts.isArrayLiteralExpression(list)) {
    fail(node, messages.notList);
    return [];
  }
  const refs: StringRef[] = [];
  for (const element of list.elements) {
    const ref = readString(file, element, consts);
    if (ref === undefined) fail(element, messages.notString);
    else refs.push(ref);
  }
  return refs;
}
