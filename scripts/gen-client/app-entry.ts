/**
 * What scripts/gen-client.ts bundles and loads in Node: the gateway's app as the Worker entry
 * builds it, so the document the client is generated from is the one /openapi.json serves.
 */
import { createParts } from "../../src/compose.ts";
import { createApp } from "../../src/http/app.ts";

export const app = createApp(createParts());
