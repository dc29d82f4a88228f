/**
 * Example plugin: in every JSON result, replaces the value of each field named in
 * PLUGIN_REDACT_RESULT_FIELDS (comma-separated, e.g. `api_token,password`), at any depth,
 * with "[redacted]" before the model reads it. Unset or blank, results pass unchanged.
 *
 * It rewrites what the model reads (a transform hook); calls that depend on this one in a batch
 * still get the tool's own value, since they run inside the gateway, not in the model.
 */
import { plugins } from "../src/plugins/plugin-registry.ts";
import { settingReader } from "./lib/plugin-setting.ts";
import { parseFieldList, redactFields } from "./lib/redact-fields.ts";

const redactedFields = settingReader("PLUGIN_REDACT_RESULT_FIELDS", parseFieldList);

plugins.register({
  name: "redact-result-fields",
  // Off while PLUGIN_REDACT_RESULT_FIELDS is unset: then a call builds no event for it.
  active: (env) => (redactedFields(env)?.size ?? 0) > 0,
  transform: ({ result, env }) => {
    const fields = redactedFields(env);
    return fields === undefined || fields.size === 0 ? undefined : redactFields(result, fields);
  },
});
