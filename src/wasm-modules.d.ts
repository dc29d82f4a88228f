// A .wasm imported by path is a compiled WebAssembly.Module in workerd (wrangler's CompiledWasm
// module rule; the vitest plugin does the same), not bytes to compile at run time.
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
