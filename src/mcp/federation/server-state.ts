/**
 * One configured server as an isolate holds it, and what the API shows of it: registered tools,
 * their pins, the tools refused and why, the last error.
 */
import type { AvailabilityCheck } from "../../registry/types.ts";
import type { TransportKind } from "../client/mcp-client.ts";
import type { OAuthGrant } from "../client/oauth/oauth-grant.ts";
import type { ExchangedToken, ExchangeTarget } from "../client/oauth/token-exchange.ts";
import type { PinnedDefinition, ServerPins } from "./pins.ts";
import { remoteToolset } from "./remote-tool-name.ts";
import type { McpServerConfig } from "./server-config.ts";
import type { ConfiguredServer } from "./server-store.ts";
import type { CachedToolList } from "./tool-list-cache.ts";

/** One registered (or refused) remote tool, for the server's status. */
export interface RemoteToolStatus {
  name: string;
  remoteName: string;
  pin: PinStatus;
  /** Why the tool's schema is not validated locally, when it is not. */
  schemaNote?: string;
}

export interface PinStatus {
  status: "pinned" | "changed" | "blocked";
  pinnedSha256: string;
  currentSha256?: string;
  changedAt?: number;
  /** For a changed tool, both definitions, when the pins kept them. */
  pinnedDefinition?: PinnedDefinition;
  currentDefinition?: PinnedDefinition;
}

export interface ServerStatus {
  name: string;
  source: ConfiguredServer["source"];
  config: McpServerConfig;
  toolset: string;
  transport: TransportKind | null;
  listFetchedAt: number | null;
  tools: RemoteToolStatus[];
  /** Tools that were not registered and why (collisions, invalid names). */
  problems: string[];
  lastError: { at: number; message: string } | null;
  auth: AuthStatus;
}

/**
 * How toolgate authenticates to the server: `headers` (an Authorization header from a secret),
 * `oauth` (its own sign-in), or `none`; and whether a person must sign in (again).
 */
export interface AuthStatus {
  mode: "headers" | "oauth" | "none";
  status: "not_required" | "signed_in" | "needs_sign_in";
  reason?: string;
  signedInBy?: string;
  signedInAt?: number;
  expiresAt?: number;
}

/** toolgate's OAuth sign-in at the server, as this isolate last read or renewed it. */
export interface SignInState {
  status: "signed_in" | "needs_sign_in";
  reason?: string;
  signedInBy?: string;
  signedInAt?: number;
  grant?: OAuthGrant;
  readAt: number;
}

/** What an isolate holds about one configured server. */
export interface ServerState {
  config: McpServerConfig;
  source: ConfiguredServer["source"];
  configJson: string;
  list: CachedToolList | undefined;
  /** Registry name → remote name, of the tools this server registered. */
  registered: Map<string, string>;
  schemaNotes: Map<string, string>;
  problems: string[];
  pins: ServerPins;
  lastError: { at: number; message: string } | undefined;
  lastAttemptAt: number;
  /** A list_changed arrived: fetch the list again on the next sync. */
  stale: boolean;
  check: AvailabilityCheck;
  /** OAuth sign-in (servers without an Authorization header); undefined until one is needed or stored. */
  signIn: SignInState | undefined;
  /** A refresh of the grant under way in this isolate (server-auth.ts), which others due at once wait for. */
  refreshing: RefreshUnderWay | undefined;
  /** A `token_exchange` server's token endpoint and callers' exchanged tokens, as this isolate knows them (exchange-auth.ts). */
  exchange: ExchangeState;
}

/**
 * Where a `token_exchange` server's tokens are exchanged (found once, kept for a while) and each
 * principal's exchanged token, until shortly before it expires. Per isolate, and new with every
 * configuration change (a new state), so a changed client or endpoint never serves an old token.
 */
export interface ExchangeState {
  target: { value: ExchangeTarget; foundAt: number } | undefined;
  /** Principal (key id) → its token; bounded, the oldest entry dropped first. */
  tokens: Map<string, ExchangedToken>;
}

/** Which grant a refresh replaces (by its access token), and when it is taken as abandoned. */
export interface RefreshUnderWay {
  accessToken: string;
  until: number;
}

/** What the API shows of a server. */
export function statusOf(state: ServerState): ServerStatus {
  return {
    name: state.config.name,
    source: state.source,
    config: state.config,
    toolset: remoteToolset(state.config.name),
    transport: state.list?.transport ?? null,
    listFetchedAt: state.list?.fetchedAt ?? null,
    tools: [...state.registered].map(([name, remoteName]) => ({
      name,
      remoteName,
      pin: pinStatus(state, remoteName),
      ...(state.schemaNotes.has(name) ? { schemaNote: state.schemaNotes.get(name) } : {}),
    })),
    problems: state.problems,
    lastError: state.lastError ?? null,
    auth: authStatus(state),
  };
}

/** Whether the server's headers carry credentials (from a secret), which then win over OAuth. */
export function usesHeaderAuth(state: ServerState): boolean {
  return Object.keys(state.config.headers).some((name) => name.toLowerCase() === "authorization");
}

function authStatus(state: ServerState): AuthStatus {
  if (usesHeaderAuth(state)) return { mode: "headers", status: "not_required" };
  const signIn = state.signIn;
  if (signIn === undefined) return { mode: "none", status: "not_required" };
  return {
    mode: "oauth",
    status: signIn.status,
    ...(signIn.reason === undefined || signIn.status === "signed_in" ? {} : { reason: signIn.reason }),
    ...(signIn.signedInBy === undefined ? {} : { signedInBy: signIn.signedInBy }),
    ...(signIn.signedInAt === undefined ? {} : { signedInAt: signIn.signedInAt }),
    ...(signIn.grant?.expiresAt === undefined ? {} : { expiresAt: signIn.grant.expiresAt }),
  };
}

/** A tool's pin as the API shows it. */
export function pinStatus(state: ServerState, remoteName: string): PinStatus {
  const pin = state.pins[remoteName];
  if (pin === undefined) return { status: "pinned", pinnedSha256: "" };
  if (pin.changed === undefined) return { status: "pinned", pinnedSha256: pin.sha256 };
  return {
    status: state.config.pin === "block" ? "blocked" : "changed",
    pinnedSha256: pin.sha256,
    currentSha256: pin.changed.sha256,
    changedAt: pin.changed.seenAt,
    ...(pin.definition === undefined ? {} : { pinnedDefinition: pin.definition }),
    ...(pin.changed.definition === undefined ? {} : { currentDefinition: pin.changed.definition }),
  };
}

/** Why a tool is blocked, or undefined: only servers with `pin: "block"` block changed tools. */
export function blockedReason(state: ServerState, remoteName: string): string | undefined {
  if (state.config.pin !== "block") return undefined;
  const pin = state.pins[remoteName];
  if (pin?.changed === undefined) return undefined;
  return `its definition on MCP server '${state.config.name}' changed since it was pinned (sha256 ${pin.sha256.slice(0, 12)}… → ${pin.changed.sha256.slice(0, 12)}…); an admin must review and accept it (POST /v1/mcp-servers/${state.config.name}/tools/${encodeURIComponent(remoteName)}/accept)`;
}
