/**
 * The workerd binary and version Miniflare runs: both come from the `workerd` package, which
 * ships no types, hence the typed require.
 */
import { createRequire } from "node:module";

const workerd = createRequire(import.meta.url)("workerd") as { default: string; version: string };

export const WORKERD_PATH: string = workerd.default;
export const WORKERD_VERSION: string = workerd.version;
