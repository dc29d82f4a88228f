/**
 * Prompts and resources offered over MCP beside the tools: the conformance fixtures
 * (tools/conformance/) register here, and so would anything else that is neither a tool nor a
 * stored result. Each belongs to a toolset, like a tool, and a key reaches it by the same rules
 * (src/policy/content-access.ts). Names and URIs are unique; a second registration of one is
 * refused, never replaced.
 */

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/** One message of a prompt: its content is an MCP content block (text, image, audio, resource). */
export interface PromptMessage {
  role: "user" | "assistant";
  content: Record<string, unknown> & { type: string };
}

export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
}

/** What resources/read answers for one resource: text or base64 `blob`. */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/**
 * What completion/complete answers (MCP server/utilities/completion): at most
 * `MAX_COMPLETION_VALUES` values, best first; `total` and `hasMore` when there are more.
 */
export interface CompletionValues {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** The spec's cap on one answer's values. */
export const MAX_COMPLETION_VALUES = 100;

/** One completion request as an entry sees it: the argument, its partial value, the arguments already given. */
export interface CompletionQuery {
  argument: string;
  value: string;
  context: Readonly<Record<string, string>>;
}

/** What a prompt or resource is read with: the request's env (a remote server's secrets) and signal. */
export interface ContentContext {
  env: Env;
  signal?: AbortSignal | undefined;
}

interface Offered {
  toolset: string;
  /**
   * The remote MCP server it is forwarded to (federation): each get or read then leaves an
   * audit record, as a remote tool call does.
   */
  server?: string;
  /** Test fixtures: only keys that name the toolset see them, as for fixture tools. */
  fixture?: boolean;
  title?: string;
  description?: string;
}

export interface PromptEntry extends Offered {
  name: string;
  description: string;
  arguments?: PromptArgument[];
  /** Arguments are strings (MCP server/prompts); required ones are checked before this runs. */
  get(args: Readonly<Record<string, string>>, ctx: ContentContext): PromptResult | Promise<PromptResult>;
  /** Suggestions for one argument (a remote server's are forwarded); without it, none. */
  complete?(query: CompletionQuery, ctx: ContentContext): CompletionValues | Promise<CompletionValues>;
}

export interface ResourceEntry extends Offered {
  uri: string;
  name: string;
  mimeType?: string;
  read(ctx: ContentContext): ResourceContents[] | Promise<ResourceContents[]>;
}

export interface ResourceTemplateEntry extends Offered {
  /** RFC 6570 level 1: `{name}` stands for one path segment, as `test://template/{id}/data`. */
  uriTemplate: string;
  name: string;
  mimeType?: string;
  read(uri: string, params: Readonly<Record<string, string>>, ctx: ContentContext): ResourceContents[] | Promise<ResourceContents[]>;
  /** Suggestions for one of the template's variables; without it, none. */
  complete?(query: CompletionQuery, ctx: ContentContext): CompletionValues | Promise<CompletionValues>;
}

export type Registration = { ok: true } | { ok: false; reason: string };

interface CompiledTemplate {
  entry: ResourceTemplateEntry;
  pattern: RegExp;
  names: string[];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

function compileTemplate(entry: ResourceTemplateEntry): CompiledTemplate {
  const names: string[] = [];
  const source = entry.uriTemplate
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => {
      if (!part.startsWith("{")) return escapeRegExp(part);
      names.push(part.slice(1, -1));
      return "([^/?#]+)";
    })
    .join("");
  return { entry, pattern: new RegExp(`^${source}$`), names };
}

/** A malformed escape is kept as sent: the reader decides whether such a value exists. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class McpContentRegistry {
  readonly #prompts = new Map<string, PromptEntry>();
  readonly #resources = new Map<string, ResourceEntry>();
  readonly #templates = new Map<string, CompiledTemplate>();

  registerPrompt(entry: PromptEntry): Registration {
    if (this.#prompts.has(entry.name)) return { ok: false, reason: `prompt '${entry.name}' is already registered` };
    this.#prompts.set(entry.name, entry);
    return { ok: true };
  }

  registerResource(entry: ResourceEntry): Registration {
    if (this.#resources.has(entry.uri)) return { ok: false, reason: `resource '${entry.uri}' is already registered` };
    this.#resources.set(entry.uri, entry);
    return { ok: true };
  }

  registerTemplate(entry: ResourceTemplateEntry): Registration {
    if (this.#templates.has(entry.uriTemplate)) return { ok: false, reason: `resource template '${entry.uriTemplate}' is already registered` };
    this.#templates.set(entry.uriTemplate, compileTemplate(entry));
    return { ok: true };
  }

  /** Removes everything of one toolset (a remote server that left, or a test's fixtures). */
  deregisterToolset(toolset: string): void {
    for (const [name, entry] of this.#prompts) if (entry.toolset === toolset) this.#prompts.delete(name);
    for (const [uri, entry] of this.#resources) if (entry.toolset === toolset) this.#resources.delete(uri);
    for (const [template, { entry }] of this.#templates) if (entry.toolset === toolset) this.#templates.delete(template);
  }

  prompts(): PromptEntry[] {
    return [...this.#prompts.values()];
  }

  prompt(name: string): PromptEntry | undefined {
    return this.#prompts.get(name);
  }

  resources(): ResourceEntry[] {
    return [...this.#resources.values()];
  }

  resource(uri: string): ResourceEntry | undefined {
    return this.#resources.get(uri);
  }

  template(uriTemplate: string): ResourceTemplateEntry | undefined {
    return this.#templates.get(uriTemplate)?.entry;
  }

  templates(): ResourceTemplateEntry[] {
    return [...this.#templates.values()].map(({ entry }) => entry);
  }

  /** The templates `uri` matches, each with the values of its variables. */
  matchTemplates(uri: string): { entry: ResourceTemplateEntry; params: Record<string, string> }[] {
    const matches: { entry: ResourceTemplateEntry; params: Record<string, string> }[] = [];
    for (const { entry, pattern, names } of this.#templates.values()) {
      const match = pattern.exec(uri);
      if (match === null) continue;
      const params: Record<string, string> = {};
      names.forEach((name, i) => (params[name] = decodeSegment(match[i + 1] ?? "")));
      matches.push({ entry, params });
    }
    return matches;
  }
}

/** The isolate's one registry of MCP prompts and resources, as `registry` is of tools. */
export const mcpContent = new McpContentRegistry();
