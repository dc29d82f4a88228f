/** Shapes shared by the registry generator's stages (parse, discover, check, render). */

/** One problem the generator found, at a place in a source file (1-based line and column). */
export interface GenError {
  /** Project-relative, '/'-separated path. */
  file: string;
  line: number;
  column: number;
  message: string;
}

/** A place in a source file, for pointing errors at the node that caused them. */
export interface Location {
  file: string;
  line: number;
  column: number;
}

/** A string value the generator read statically, and where it was written. */
export interface StringRef {
  value: string;
  at: Location;
}

/** One top-level `registry.register({...})` statement as discovery reads it. */
export interface Registration {
  name: StringRef;
  toolset: StringRef;
  dependsOn: StringRef[];
  /** A literal `override: true`: the runtime lets it replace a same-named tool of another toolset. */
  override: boolean;
  /** The `registry.register` call itself. */
  at: Location;
}

/** One entry of STATIC_TOOLSETS. */
export interface StaticToolsetDecl {
  name: StringRef;
  tools: StringRef[];
  includes: StringRef[];
  /** Its curated endpoint's names and descriptions (src/toolsets/tool-aliases.ts), in source order. */
  aliases: AliasDecl[];
}

/** One `aliases` entry: the real tool (the key) and how `/mcp/{toolset}` presents it. */
export interface AliasDecl {
  tool: StringRef;
  name: StringRef | undefined;
  description: StringRef | undefined;
}

/** Formats an error the way compilers do, so editors and terminals can jump to it. */
export function formatGenError(error: GenError): string {
  return `${error.file}:${error.line}:${error.column}: ${error.message}`;
}

/** Orders errors by file, then position, so output does not depend on traversal order. */
export function compareGenErrors(a: GenError, b: GenError): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}

/** Renders a location as `file:line` for messages that name a second place. */
export function formatLocation(at: Location): string {
  return `${at.file}:${at.line}`;
}
