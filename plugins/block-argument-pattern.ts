/**
 * Example plugin: refuses every call one of whose string arguments (nested ones too) matches
 * the regular expression in PLUGIN_BLOCK_ARGUMENT_PATTERN, e.g. `rm\s+-rf\s+/|DROP\s+TABLE`.
 * Unset or blank, it lets every call through, so a default deployment behaves as without it.
 *
 * The model is told which argument was refused but not the pattern, so it cannot tune its
 * arguments around the rule.
 */
import { env } from "cloudflare:workers";
import { plugins } from "../src/plugins/plugin-registry.ts";
import { matchingArgument } from "./lib/matching-argument.ts";
import { settingReader } from "./lib/plugin-setting.ts";

const SETTING = "PLUGIN_BLOCK_ARGUMENT_PATTERN";

const blockPattern = settingReader(SETTING, (source) => {
  try {
    return new RegExp(source);
  } catch (error) {
    throw new Error(
      `${SETTING} is not a valid JavaScript regular expression (${JSON.stringify(source)}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
});

// Compile once at load, so a bad pattern stops `wrangler dev` and `wrangler deploy` with the
// var's name, as a bad [vars] value does (src/index.ts), instead of blocking every call later.
blockPattern(env);

plugins.register({
  name: "block-argument-pattern",
  // Off while PLUGIN_BLOCK_ARGUMENT_PATTERN is unset: then a call builds no event for it. A
  // pattern that fails to compile throws here, which counts as on, so the hook runs and blocks.
  active: (env) => blockPattern(env) !== undefined,
  preCall: ({ tool, args, env: callEnv }) => {
    // A pattern that fails to compile here throws, and a throwing pre-call hook blocks: fail closed.
    const pattern = blockPattern(callEnv);
    if (pattern === undefined) return undefined;
    const path = matchingArgument(args, pattern);
    if (path === undefined) return undefined;
    return {
      action: "block",
      message: `Call to '${tool}' refused: argument '${path}' matches a pattern this deployment blocks (plugin block-argument-pattern).`,
    };
  },
});
