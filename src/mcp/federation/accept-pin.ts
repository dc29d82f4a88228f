/** An admin's acceptance of a remote tool's changed definition, stored and audited. */
import { auditPinEvents, type PinEvent } from "./pin-audit.ts";
import { readPins, writePins } from "./pins.ts";
import { remoteToolName, remoteToolset } from "./remote-tool-name.ts";
import { type PinStatus, pinStatus, type ServerState } from "./server-state.ts";

/** Whether a changed definition was accepted, and the tool's pin after it. */
export interface PinAcceptance {
  accepted: boolean;
  pin?: PinStatus;
}

/**
 * Makes the changed definition of the server's tool `remoteName` the pinned one, so a blocking
 * server no longer blocks it. Pins are re-read from KV first: another isolate may have accepted
 * it already, which answers `accepted: false` with the pin as it now is.
 */
export async function acceptPin(env: Env, state: ServerState, remoteName: string, keyId: string, now: () => number): Promise<PinAcceptance> {
  const server = state.config.name;
  const pins = await readPins(env.KV, server);
  const pin = pins[remoteName];
  if (pin?.changed === undefined) {
    state.pins = pins;
    return { accepted: false, ...(pin === undefined ? {} : { pin: pinStatus(state, remoteName) }) };
  }
  const event: PinEvent = {
    event: "accepted",
    server,
    remoteName,
    tool: remoteToolName(server, remoteName),
    toolset: remoteToolset(server),
    pinnedSha256: pin.sha256,
    currentSha256: pin.changed.sha256,
    blocked: state.config.pin === "block",
    keyId,
  };
  pins[remoteName] = { sha256: pin.changed.sha256, pinnedAt: now(), ...(pin.changed.definition === undefined ? {} : { definition: pin.changed.definition }) };
  await writePins(env.KV, server, pins);
  state.pins = pins;
  await auditPinEvents(env, [event]);
  return { accepted: true, pin: pinStatus(state, remoteName) };
}
