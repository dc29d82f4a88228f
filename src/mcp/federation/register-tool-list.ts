/**
 * A server's tools in the registry: a list's selected tools registered (its pins compared and
 * changes audited first), or every tool of the server taken out. Registration fails closed, as
 * planRegistration decides: a collision or an invalid name leaves the tool out, logged and listed
 * in the server's problems.
 */
import { registry } from "../../registry/registry.ts";
import { exchangeAuth } from "./exchange-auth.ts";
import { modelSchema, validatorFor } from "./json-schema-validator.ts";
import { auditPinEvents, type PinEvent } from "./pin-audit.ts";
import { comparePins, readPins, writePins } from "./pins.ts";
import { planRegistration } from "./plan-registration.ts";
import { removeRemoteContent } from "./remote-content.ts";
import { remoteToolSpec } from "./remote-tool.ts";
import { remoteToolName, remoteToolset } from "./remote-tool-name.ts";
import { screenTools } from "./screen-tools.ts";
import { serverClient } from "./server-client.ts";
import { blockedReason, type ServerState } from "./server-state.ts";
import { startSignIn } from "./start-sign-in.ts";
import type { CachedToolList } from "./tool-list-cache.ts";

/** Registers a list's selected tools and removes the server's tools it no longer has. */
export async function registerToolList(env: Env, state: ServerState, list: CachedToolList, now: () => number): Promise<void> {
  const { config } = state;
  // Before the pins, the importer and the registry walk any schema.
  const screened = screenTools(list.tools);
  const compared = await comparePins(await readPins(env.KV, config.name), screened.tools, now());
  if (compared.dirty) await writePins(env.KV, config.name, compared.pins);
  state.pins = compared.pins;
  state.list = list;

  const toolset = remoteToolset(config.name);
  const { wanted, problems: planned } = planRegistration(config, screened.tools, (name) => registry.get(name)?.toolset);
  const problems = [...screened.problems, ...planned];
  for (const name of state.registered.keys()) {
    if (!wanted.has(name) && registry.get(name)?.toolset === toolset) registry.deregister(name);
  }
  const registered = new Map<string, string>();
  const schemaNotes = new Map<string, string>();
  for (const [name, tool] of wanted) {
    const validator = validatorFor(tool.inputSchema);
    if (validator.unsupported !== undefined) schemaNotes.set(name, `arguments are checked by the server only: ${validator.unsupported}`);
    const outcome = registry.register(
      remoteToolSpec({
        server: config,
        tool,
        name,
        toolset,
        parameters: modelSchema(tool.inputSchema),
        validator,
        clientFor: (callEnv, callHeaders, auth) => serverClient(callEnv, state, callHeaders, auth),
        connectLink: (callEnv, principal, origin) => startSignIn(callEnv, state, principal, origin, principal),
        exchangeAuth: (ctx, registryName) => exchangeAuth(state, ctx, registryName, () => Date.now()),
        check: state.check,
        gate: () => blockedReason(state, tool.name),
        sharesCredential: () => Object.keys(state.config.headers).length > 0 || state.signIn?.grant !== undefined,
      }),
    );
    if (outcome.ok) registered.set(name, tool.name);
    else problems.push(outcome.reason);
  }
  for (const problem of problems) console.error(`MCP server '${config.name}': ${problem}`);
  state.registered = registered;
  state.schemaNotes = schemaNotes;
  state.problems = problems;

  const events: PinEvent[] = compared.newlyChanged
    .filter((remoteName) => [...registered.values()].includes(remoteName))
    .map((remoteName) => {
      const pin = compared.pins[remoteName];
      return {
        event: "changed",
        server: config.name,
        remoteName,
        tool: remoteToolName(config.name, remoteName),
        toolset,
        pinnedSha256: pin?.sha256 ?? "",
        currentSha256: pin?.changed?.sha256 ?? "",
        blocked: config.pin === "block",
        keyId: "federation",
      };
    });
  await auditPinEvents(env, events);
}

/**
 * Takes every tool the server registered out of the registry and forgets its list (removed,
 * disabled or reconfigured). A name now held by another toolset is not the server's to remove.
 */
export function unregisterToolList(state: ServerState): void {
  const toolset = remoteToolset(state.config.name);
  for (const name of state.registered.keys()) if (registry.get(name)?.toolset === toolset) registry.deregister(name);
  removeRemoteContent(state);
  state.registered = new Map();
  state.list = undefined;
}
