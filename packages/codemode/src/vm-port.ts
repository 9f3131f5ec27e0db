import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten'

/**
 * The crossings a run makes on every turn of its loop (sandbox.ts): run the VM's pending jobs,
 * read the outbox (port[0]), and settle sub-calls (port[1] = id, port[2] = text; prelude.ts).
 *
 * Two implementations with one behaviour. `directPort` calls quickjs-emscripten's C functions
 * itself; `publicPort` goes through the library's handle API, which wraps every crossing in
 * lifetime objects, and for the job pump allocates two typed arrays and a heap cell per call.
 * Measured in a `run_code` loop, that wrapping was ~12% of the cost of a sub-call. The direct
 * port reads fields the library does not document (the context and runtime pointers, its
 * Emscripten module), so it is used only when they are all there with the expected types; any
 * other version of the library gets the public port.
 */
export interface VmPort {
  /** `'direct'` when the crossings bypass the library's wrappers. */
  readonly kind: 'direct' | 'public'
  /** Run every pending job; the message of the exception a job raised, if one did. */
  pump(): string | undefined
  /** Take the outbox: the sub-calls made since the last take. */
  take(): string
  /** Settle one sub-call: `text` is its value's JSON, or `["message", "tool name"]` when it failed. */
  settle(id: number, ok: boolean, text: string): void
  /** Free what the port allocated. Idempotent. */
  dispose(): void
}

/** Open the fastest port that works with this build of the library. */
export function openPort(
  module: QuickJSWASMModule,
  runtime: QuickJSRuntime,
  vm: QuickJSContext,
  port: QuickJSHandle,
  options: { readonly direct?: boolean } = {},
): VmPort {
  if (options.direct !== false) {
    const raw = rawAccess(module, runtime, vm)
    if (raw) return directPort(raw, port)
  }
  return publicPort(runtime, vm, port)
}

// ---- the public API ----

function publicPort(runtime: QuickJSRuntime, vm: QuickJSContext, port: QuickJSHandle): VmPort {
  // A number key passed to setProp becomes a new VM number on every call; the handles are made once.
  const idKey = vm.newNumber(1)
  const textKey = vm.newNumber(2)
  return {
    kind: 'public',
    pump() {
      const jobs = runtime.executePendingJobs()
      if (!jobs.error) return undefined
      return takeErrorMessage(vm, jobs.error)
    },
    take() {
      const taken = vm.getProp(port, 0)
      const text = vm.getString(taken)
      taken.dispose()
      return text
    },
    settle(id, ok, text) {
      const idHandle = vm.newNumber(ok ? id : -id - 1)
      vm.setProp(port, idKey, idHandle)
      idHandle.dispose()
      const textHandle = vm.newString(text)
      vm.setProp(port, textKey, textHandle)
      textHandle.dispose()
    },
    dispose() {
      if (idKey.alive) idKey.dispose()
      if (textKey.alive) textKey.dispose()
    },
  }
}

/** The `message` of a VM error (a handle this consumes). */
export function takeErrorMessage(vm: QuickJSContext, error: QuickJSHandle): string {
  try {
    const m = vm.getProp(error, 'message')
    const text = vm.typeof(m) === 'string' ? vm.getString(m) : 'unknown error'
    m.dispose()
    return text
  } catch {
    return 'unknown error'
  } finally {
    error.dispose()
  }
}

// ---- the C functions ----

/** The parts of the library's Emscripten module the direct port uses. */
interface Emscripten {
  readonly HEAPU8: Uint8Array
  _malloc(bytes: number): number
  _free(pointer: number): void
  UTF8ToString(pointer: number): string
  stringToUTF8(text: string, pointer: number, maxBytes: number): void
  lengthBytesUTF8(text: string): number
}

/** The C functions the direct port calls (a subset of the library's FFI). */
interface Ffi {
  QTS_ExecutePendingJob(rt: number, maxJobs: number, lastContext: number): number
  QTS_FreeValuePointerRuntime(rt: number, value: number): void
  QTS_FreeValuePointer(ctx: number, value: number): void
  QTS_Typeof(ctx: number, value: number): number
  QTS_GetPropNumber(ctx: number, value: number, index: number): number
  QTS_GetProp(ctx: number, value: number, key: number): number
  QTS_GetString(ctx: number, value: number): number
  QTS_FreeCString(ctx: number, text: number): void
  QTS_NewString(ctx: number, text: number): number
  QTS_SetProp(ctx: number, value: number, key: number, item: number): void
  QTS_NewFloat64(ctx: number, value: number): number
}

interface RawAccess {
  readonly em: Emscripten
  readonly ffi: Ffi
  readonly rt: number
  readonly ctx: number
}

const FFI_FUNCTIONS = [
  'QTS_ExecutePendingJob',
  'QTS_FreeValuePointerRuntime',
  'QTS_FreeValuePointer',
  'QTS_Typeof',
  'QTS_GetPropNumber',
  'QTS_GetProp',
  'QTS_GetString',
  'QTS_FreeCString',
  'QTS_NewString',
  'QTS_SetProp',
  'QTS_NewFloat64',
] as const satisfies readonly (keyof Ffi)[]

const EM_FUNCTIONS = ['_malloc', '_free', 'UTF8ToString', 'stringToUTF8', 'lengthBytesUTF8'] as const

/** The pointers and functions behind the library's objects, or undefined when any is missing. */
function rawAccess(
  module: QuickJSWASMModule,
  runtime: QuickJSRuntime,
  vm: QuickJSContext,
): RawAccess | undefined {
  try {
    const em = (module as unknown as { module?: Partial<Emscripten> }).module
    const ffi = module.getFFI() as unknown as Partial<Ffi>
    const rt = (runtime as unknown as { rt?: { value?: unknown } }).rt?.value
    const ctx = (vm as unknown as { ctx?: { value?: unknown } }).ctx?.value
    if (!em || !(em.HEAPU8 instanceof Uint8Array) || typeof rt !== 'number' || typeof ctx !== 'number') return
    for (const name of EM_FUNCTIONS) if (typeof em[name] !== 'function') return
    for (const name of FFI_FUNCTIONS) if (typeof ffi[name] !== 'function') return
    return { em: em as Emscripten, ffi: ffi as Ffi, rt, ctx }
  } catch {
    return undefined
  }
}

function directPort({ em, ffi, rt, ctx }: RawAccess, port: QuickJSHandle): VmPort {
  const portValue = port.value as unknown as number
  // One allocation per run for the pump's out-parameter, the settle keys and a text buffer that
  // grows as needed: nothing is allocated per crossing but the VM's own values.
  const cell = em._malloc(4)
  const idKey = ffi.QTS_NewFloat64(ctx, 1)
  const textKey = ffi.QTS_NewFloat64(ctx, 2)
  let buffer = 0
  let capacity = 0
  let open = true
  // A view of the wasm memory, made again only when the memory grows (its buffer is replaced).
  let heap = new Int32Array(em.HEAPU8.buffer)
  const readCell = (): number => {
    if (heap.buffer !== em.HEAPU8.buffer) heap = new Int32Array(em.HEAPU8.buffer)
    return heap[cell >> 2]!
  }

  /** Write `text` NUL-terminated into the reusable buffer; its address. */
  const cString = (text: string): number => {
    const bytes = em.lengthBytesUTF8(text) + 1
    if (bytes > capacity) {
      if (buffer !== 0) em._free(buffer)
      capacity = Math.max(bytes, 256, capacity * 2)
      buffer = em._malloc(capacity)
    }
    em.stringToUTF8(text, buffer, bytes)
    return buffer
  }
  /** A borrowed C string as text (NULL reads as ''), freed. */
  const takeCString = (pointer: number): string => {
    if (pointer === 0) return ''
    const text = em.UTF8ToString(pointer)
    ffi.QTS_FreeCString(ctx, pointer)
    return text
  }
  /** QTS_Typeof's answer (an owned C string), freed. */
  const typeOf = (value: number): string => {
    const pointer = ffi.QTS_Typeof(ctx, value)
    const text = em.UTF8ToString(pointer)
    em._free(pointer)
    return text
  }

  return {
    kind: 'direct',
    pump() {
      const value = ffi.QTS_ExecutePendingJob(rt, -1, cell)
      // the context of the last job run, 0 when none ran (the count is then freed by the runtime)
      if (readCell() === 0) {
        ffi.QTS_FreeValuePointerRuntime(rt, value)
        return undefined
      }
      // a number is how many jobs ran; anything else is the exception a job raised
      if (typeOf(value) === 'number') {
        ffi.QTS_FreeValuePointer(ctx, value)
        return undefined
      }
      let message = 'unknown error'
      const messageKey = ffi.QTS_NewString(ctx, cString('message'))
      const m = ffi.QTS_GetProp(ctx, value, messageKey)
      if (typeOf(m) === 'string') message = takeCString(ffi.QTS_GetString(ctx, m))
      ffi.QTS_FreeValuePointer(ctx, m)
      ffi.QTS_FreeValuePointer(ctx, messageKey)
      ffi.QTS_FreeValuePointer(ctx, value)
      return message
    },
    take() {
      const value = ffi.QTS_GetPropNumber(ctx, portValue, 0)
      const text = takeCString(ffi.QTS_GetString(ctx, value))
      ffi.QTS_FreeValuePointer(ctx, value)
      return text
    },
    settle(id, ok, text) {
      const idValue = ffi.QTS_NewFloat64(ctx, ok ? id : -id - 1)
      ffi.QTS_SetProp(ctx, portValue, idKey, idValue)
      ffi.QTS_FreeValuePointer(ctx, idValue)
      const value = ffi.QTS_NewString(ctx, cString(text))
      ffi.QTS_SetProp(ctx, portValue, textKey, value)
      ffi.QTS_FreeValuePointer(ctx, value)
    },
    dispose() {
      if (!open) return
      open = false
      ffi.QTS_FreeValuePointer(ctx, idKey)
      ffi.QTS_FreeValuePointer(ctx, textKey)
      em._free(cell)
      if (buffer !== 0) em._free(buffer)
    },
  }
}
