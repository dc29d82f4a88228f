/**
 * Builds a request's scope, once per request: every door (the /v1 routes, /mcp, a webhook
 * delivery, an approved call's run) calls this and passes the result by reference. Opening the
 * catalog here (or taking the one the door opened for this same request) is what makes remote
 * MCP tools visible, so no door has to remember it; and it comes first, because a key's toolsets
 * and the request's toolset may name a remote server's toolset (`mcp-<server>`), which resolves
 * only once that server's tools are registered.
 */

import type { Principal } from "../auth/principal.ts";
import type { CatalogView } from "../catalog/catalog.ts";
import { type GatewayConfig, loadConfig } from "../config/config.ts";
import type { ToolAccess } from "../policy/tool-access.ts";
import type { ClientChannel } from "../registry/client-channel.ts";
import { builtInAliases, type CustomToolsetLookup, isBuiltInToolset, resolveToolset } from "../toolsets/resolve.ts";
import { aliasTable } from "../toolsets/tool-aliases.ts";
import { currentRequestId } from "../tracing/request-context.ts";
import type { AllowedTools, Connection, KeyScope, PipelineParts, RequestScope, RunScope } from "./types.ts";

/** Key id recorded as the requester when a door does not name one (the approvals layer refuses it). */
const UNKNOWN_REQUESTER = "unknown";

/** The channel of doors that cannot talk back to the caller mid-call (/v1): every message is dropped. */
const SILENT_CLIENT: ClientChannel = Object.freeze({ progress: () => undefined, log: () => undefined });

const IGNORE_WAIT_UNTIL = (): void => undefined;

const NO_CONNECTION: Connection = Object.freeze({ signal: undefined, origin: undefined });

/** What a door knows about its request; everything else has a default. */
export interface ScopeInput {
  env: Env;
  sessionId: string;
  config?: GatewayConfig;
  keyId?: string;
  /** The calling key; `keyId` defaults to its id. */
  principal?: Principal;
  /** The key's access, or how to resolve it once the catalog is open. */
  access?: ToolAccess | (() => Promise<ToolAccess>);
  allowedTools?: AllowedTools;
  waitUntil?: (promise: Promise<unknown>) => void;
  /** The caller's abort signal and origin; none when the door has no client to lose (a queue, an alarm). */
  connection?: Connection;
  client?: ClientChannel;
  /** The agent run the calls belong to. */
  run?: RunScope;
  matchApprovalsByArguments?: boolean;
  /** The request's id; the current one (request-context.ts) when absent. */
  requestId?: string;
  /** The catalog, when the door already opened it for this request; opened here otherwise. */
  catalog?: CatalogView | undefined;
}

/** A request a key made names the key and its access. */
type KeyScopeInput = ScopeInput & { principal: Principal; access: NonNullable<ScopeInput["access"]> };

/** Opens the catalog for this request and returns the scope its calls share. */
export function openScope(parts: PipelineParts, input: KeyScopeInput): Promise<KeyScope>;
export function openScope(parts: PipelineParts, input: ScopeInput): Promise<RequestScope>;
export async function openScope(parts: PipelineParts, input: ScopeInput): Promise<RequestScope> {
  const catalog = input.catalog ?? (await parts.catalog.open(input.env));
  return {
    env: input.env,
    config: input.config ?? loadConfig(input.env),
    keyId: input.keyId ?? input.principal?.keyId ?? UNKNOWN_REQUESTER,
    principal: input.principal,
    access: typeof input.access === "function" ? await input.access() : input.access,
    allowedTools: input.allowedTools,
    sessionId: input.sessionId,
    connection: input.connection ?? NO_CONNECTION,
    waitUntil: input.waitUntil ?? IGNORE_WAIT_UNTIL,
    client: input.client ?? SILENT_CLIENT,
    // Fields present even when undefined: a literal of fixed shape, not spreads (outcome.ts says why).
    matchApprovalsByArguments: input.matchApprovalsByArguments === true,
    catalog,
    parts,
    run: input.run,
    requestId: input.requestId ?? currentRequestId(),
  };
}

/**
 * Like openScope, for a request limited to one toolset (a `toolset` field, `/mcp/{toolset}`):
 * only its tools may run. Answers `unknownToolset` when the name resolves to nothing.
 */
export function openToolsetScope(
  parts: PipelineParts,
  input: KeyScopeInput,
  toolset: string,
  lookup: CustomToolsetLookup,
): Promise<KeyScope | { unknownToolset: string }>;
export function openToolsetScope(
  parts: PipelineParts,
  input: ScopeInput,
  toolset: string,
  lookup: CustomToolsetLookup,
): Promise<RequestScope | { unknownToolset: string }>;
export async function openToolsetScope(
  parts: PipelineParts,
  input: ScopeInput,
  toolset: string,
  lookup: CustomToolsetLookup,
): Promise<RequestScope | { unknownToolset: string }> {
  const scope = await openScope(parts, input);
  const names = await resolveToolset(toolset, lookup);
  if (names === undefined) return { unknownToolset: toolset };
  const members = new Set(names);
  // A static toolset's aliases are in the bundle; a custom one's record the lookup read already, once per request.
  const aliases = isBuiltInToolset(toolset) ? builtInAliases(toolset) : (await lookup(toolset))?.aliases;
  // An alias of a tool an included toolset no longer holds is dropped rather than served.
  const live = aliases === undefined ? [] : Object.entries(aliases).filter(([tool]) => members.has(tool));
  return { ...scope, allowedTools: { toolset, names: members, aliases: live.length === 0 ? undefined : aliasTable(Object.fromEntries(live)) } };
}
