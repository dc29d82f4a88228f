/**
 * Imported first by the Worker entry (src/index.ts), so the build-time tools that its imports
 * register get their JSON Schemas at first use rather than at start-up (Registry.deferSchemas);
 * the entry turns it off once its imports have run.
 */
import { registry } from "./registry.ts";

registry.deferSchemas(true);
