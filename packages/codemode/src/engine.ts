import { newQuickJSWASMModule, type QuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten'

/**
 * The QuickJS WebAssembly module is compiled and instantiated once per process (~15-20 ms) and
 * shared; every run gets its own runtime + context inside it (a fresh heap with its own limits).
 * We use the synchronous build: sub-call results reach the VM through the prelude's port (see
 * prelude.ts) and are pumped with `executePendingJobs()`, which is cheaper per call than the
 * asyncify build.
 *
 * If the module ever raises a host-level error from inside wasm (a trap or a native stack
 * overflow) its linear memory may be inconsistent, so it is discarded and the next run loads a
 * fresh one (`poisonEngine`).
 */
let current: Promise<QuickJSWASMModule> | undefined

export function loadEngine(): Promise<QuickJSWASMModule> {
  if (!current) {
    const loading = newQuickJSWASMModule(RELEASE_SYNC)
    current = loading
    loading.catch(() => {
      if (current === loading) current = undefined
    })
  }
  return current
}

/** Forget the shared module; runs still holding it finish or fail on their own. */
export function poisonEngine(module: QuickJSWASMModule): void {
  const held = current
  if (!held) return
  held.then(
    (m) => {
      if (m === module && current === held) current = undefined
    },
    () => {},
  )
}
