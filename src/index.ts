/**
 * The Worker entry. Importing tools.gen.ts registers every tool (discovery happened at build
 * time, because a Worker's imports must be static).
 */
import "./registry/tools.gen.ts";
import { createApp } from "./http/app.ts";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
