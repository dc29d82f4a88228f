// Every test file sees the registry as the Worker does: discovered tools imported once.
import "../src/registry/tools.gen.ts";
