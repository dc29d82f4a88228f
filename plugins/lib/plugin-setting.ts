/**
 * Reading a plugin's setting from the Worker's vars. Plugin settings are not in wrangler.toml
 * (a deployer adds only what they use), so `Env` does not declare them and they are read by name.
 */

/** The var's value, or undefined when it is unset or blank (blank means "off", as unset does). */
export function readSetting(env: Env, name: string): string | undefined {
  const value: unknown = Reflect.get(env, name);
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/**
 * `parse` applied to the var's value, remembering the last value seen: the env is the same on
 * every call of an isolate, so a setting is parsed once, not per call.
 */
export function settingReader<T>(name: string, parse: (value: string) => T): (env: Env) => T | undefined {
  let last: { value: string; parsed: T } | undefined;
  return function readParsedSetting(env) {
    const value = readSetting(env, name);
    if (value === undefined) return undefined;
    if (last?.value !== value) last = { value, parsed: parse(value) };
    return last.parsed;
  };
}
