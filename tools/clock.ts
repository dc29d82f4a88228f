/**
 * A tool with dynamicSchemaOverrides: its description names the deployment's default time
 * zone, which is only known from the environment at definitions time.
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";

const FALLBACK_ZONE = "UTC";

function defaultZone(env: Env): string {
  const zone: unknown = Reflect.get(env, "DEFAULT_TIMEZONE");
  return typeof zone === "string" && zone !== "" ? zone : FALLBACK_ZONE;
}

function isValidZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

registry.register({
  name: "current_time",
  toolset: "core",
  emoji: "🕒",
  readOnly: true,
  example: { timezone: "Europe/Paris" },
  worstInputs: [{ name: "a 1 MiB time zone name, which Intl refuses", args: () => ({ timezone: "Europe/".padEnd(1024 * 1024, "x") }) }],
  schema: () =>
    z.object({
      timezone: z
        .string()
        .refine(isValidZone, "must be an IANA time zone name such as Europe/Paris")
        .optional()
        .describe("IANA time zone name, for example Europe/Paris. Defaults to the deployment's zone."),
    }),
  description: "Returns the current date and time.",
  dynamicSchemaOverrides: (env) => ({
    description: `Returns the current date and time as ISO 8601 and as local wall-clock time. Without a timezone it uses ${defaultZone(env)}.`,
  }),
  handler: ({ timezone }, { env }) => {
    const zone = timezone ?? defaultZone(env);
    const now = new Date();
    const local = new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "full", timeStyle: "long" }).format(now);
    return { iso: now.toISOString(), timezone: zone, local, unix_ms: now.getTime() };
  },
});
