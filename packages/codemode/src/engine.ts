import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'

/**
 * Where the engine comes from: quickjs-emscripten-core and ONE WebAssembly build of QuickJS,
 * `@jitl/quickjs-wasmfile-release-sync` (the synchronous release build: sub-call results reach
 * the VM through the prelude's port and are pumped with `executePendingJobs()`, which is cheaper
 * per call than the asyncify build). The two packages are one library released in lockstep, so
 * package.json pins both to the same exact version.
 *
 * The WebAssembly module is compiled once per process, on the host (asynchronously: V8 compiles
 * on its own threads), and handed to every sandbox worker, which only instantiates it (measured:
 * ~9 ms instead of ~22 ms for a worker that compiles it itself).
 */
const require = createRequire(import.meta.url)

/** The CommonJS entries a worker loads (a worker's bootstrap is a script, not a module). */
export function enginePaths(): { readonly core: string; readonly variant: string } {
  return {
    core: require.resolve('quickjs-emscripten-core'),
    variant: require.resolve('@jitl/quickjs-wasmfile-release-sync'),
  }
}

let compiled: Promise<WebAssembly.Module> | undefined

export function loadWasmModule(): Promise<WebAssembly.Module> {
  if (!compiled) {
    const loading = readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then((bytes) =>
      WebAssembly.compile(bytes),
    )
    compiled = loading
    // a failed load is tried again by the next run
    loading.catch(() => {
      if (compiled === loading) compiled = undefined
    })
  }
  return compiled
}
