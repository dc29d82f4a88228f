/**
 * Pin events in the audit log, next to the calls they concern: a definition that changed (who:
 * `federation`, decision `pin_changed`, status `blocked` when the server blocks changed tools)
 * and an admin's acceptance (who: that key, decision `pin_accepted`, status `approved`). The
 * arguments column holds the server, the remote tool name and both hashes, so
 * `GET /v1/audit?tool=mcp__github__*`-style reviews show when a tool's meaning moved.
 */
import { AuditBuffer } from "../../audit/audit-buffer.ts";
import { toAuditRecord } from "../../audit/to-audit-record.ts";

export interface PinEvent {
  event: "changed" | "accepted";
  server: string;
  remoteName: string;
  tool: string;
  toolset: string;
  pinnedSha256: string;
  currentSha256: string;
  blocked: boolean;
  /** The admin's key for acceptances; `federation` for what a refresh found. */
  keyId: string;
}

/** Writes pin events through the audit pipeline (queue, D1 fallback); never rejects. */
export async function auditPinEvents(env: Env, events: readonly PinEvent[]): Promise<void> {
  if (events.length === 0) return;
  const buffer = new AuditBuffer();
  for (const e of events) {
    const outcome = {
      callId: `pin-${e.event}-${e.currentSha256.slice(0, 16)}`,
      tool: e.tool,
      toolset: e.toolset,
      durationMs: 0,
      attempts: 0,
      coercions: [],
      truncated: false,
      resultChars: 0,
    };
    buffer.add(
      toAuditRecord(
        outcome,
        { server: e.server, tool: e.remoteName, pinned_sha256: e.pinnedSha256, current_sha256: e.currentSha256 },
        {
          keyId: e.keyId,
          sessionId: `mcp-server:${e.server}`,
          policy: { decision: e.event === "changed" ? "pin_changed" : "pin_accepted", rule: e.blocked ? "pin:block" : "pin:warn" },
          status: e.event === "accepted" ? "approved" : e.blocked ? "blocked" : "ok",
        },
      ),
    );
  }
  await buffer.flush(env);
}
