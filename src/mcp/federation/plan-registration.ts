/**
 * Which of a server's listed tools get registered, under which names, and which are refused and
 * why. Fail closed, as the reference client does since its collision fixes: names that sanitise
 * alike are all refused (picking one would be arbitrary, and a later list could swap them), and
 * a name another toolset owns (a built-in or another server) is never taken over.
 */
import type { RemoteTool } from "../client/mcp-client.ts";
import { remoteToolName, remoteToolset, serverOfToolset } from "./remote-tool-name.ts";
import { selectTools } from "./select-tools.ts";
import type { McpServerConfig } from "./server-config.ts";

export interface RegistrationPlan {
  /** Registry name → the remote tool to register under it. */
  wanted: Map<string, RemoteTool>;
  /** One sentence per refused tool or group. */
  problems: string[];
}

/**
 * Plans the registration of `tools` for `server`.
 *
 * @param ownerOf the toolset that has a registry name now, if any.
 */
export function planRegistration(
  server: Pick<McpServerConfig, "name" | "include" | "exclude">,
  tools: readonly RemoteTool[],
  ownerOf: (name: string) => string | undefined,
): RegistrationPlan {
  const toolset = remoteToolset(server.name);
  const problems: string[] = [];
  const byName = new Map<string, RemoteTool[]>();
  for (const tool of selectTools(tools, server.include, server.exclude)) {
    const name = remoteToolName(server.name, tool.name);
    byName.set(name, [...(byName.get(name) ?? []), tool]);
  }
  const wanted = new Map<string, RemoteTool>();
  for (const [name, group] of byName) {
    const [only, ...others] = group;
    if (only === undefined) continue;
    if (others.length > 0) {
      problems.push(`tools ${group.map((t) => `'${t.name}'`).join(", ")} all become '${name}'; none of them is registered (fail closed)`);
      continue;
    }
    const owner = ownerOf(name);
    if (owner !== undefined && owner !== toolset) {
      problems.push(
        `'${only.name}' would be '${name}', which ${serverOfToolset(owner) === undefined ? `built-in toolset '${owner}'` : `MCP server '${serverOfToolset(owner)}'`} already has; not registered`,
      );
      continue;
    }
    wanted.set(name, only);
  }
  return { wanted, problems };
}
