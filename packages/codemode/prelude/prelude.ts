// biome-ignore-all lint/style/useTemplate: this is the code QuickJS runs, its per-call paths measured as written with +; and scripts/prelude.mjs trims every line, so no template literal may span lines
/**
 * The code that runs INSIDE the QuickJS context before the model's program. This file is never
 * imported: `scripts/prelude.mjs` strips its types and writes the function's text into
 * `src/prelude.ts` (PRELUDE_SOURCE), which the worker evaluates to a function and calls once with two
 * host functions, the tool names and the arguments cap; the host functions are closed over, never
 * placed on the global object, so the program cannot reach them. It returns `[run, port]`, which
 * only the host holds. The function must stay self-contained: it may use only its parameters and
 * the ECMAScript globals (this folder's tsconfig has no DOM and no Node types), and nothing outside
 * it survives the build but type declarations.
 *
 * - `tools`: a frozen Proxy over a null-prototype object; one property per tool (defineProperty, so
 *   a tool named `__proto__` is an ordinary property). A missing name throws a TypeError that lists
 *   the tools instead of QuickJS's bare "not a function".
 * - Sub-call arguments are serialized HERE by a lossless serializer (plain objects/arrays, strings,
 *   finite numbers, booleans, null; no accessors, symbols, holes, cycles, class instances). If the
 *   value is not lossless the call's promise rejects in the VM and nothing reaches the host.
 * - A sub-call is NOT a host function call: it appends `<tool index>\n<args JSON>\n` to an outbox
 *   string that the host reads (port[0]) each time the VM yields. Measured with quickjs-emscripten
 *   0.32: a VM->host function call costs ~7 us, most of it the library's generator-based callback
 *   plumbing; the host's read ~0.5 us. Call ids are implicit: the n-th frame ever taken is id n,
 *   which is also the host's subIndex. Serialized JSON has no raw newline, so the framing is
 *   unambiguous.
 * - One native promise per sub-call; settling parses the results with the VM's own JSON.parse and
 *   resolves each promise directly, or rejects it with `ToolCallError` (name, toolName, message; no
 *   internal codes; seed 001 §6.10). Many settlements cross at once.
 * - `console.log/info/debug/warn/error` format in the VM and hand one line of text to the host; a
 *   truthy answer means the run is stopping (output limit), after which tool calls reject in the VM.
 * - Code generation from strings (`eval`, `Function`, and the async/generator constructors) is
 *   disabled: QuickJS's parser recurses on the host stack without a depth check, and a program could
 *   otherwise build a string that crashes the host process. Program text is depth-checked on the
 *   host before it is compiled (strip.ts).
 * Primordials are captured up front so the program cannot break the bridge by patching builtins.
 * The built text has no multi-line string or template literal (scripts/prelude.mjs blanks comment
 * lines and indentation line by line).
 */

/** Writes one console line; a truthy answer means the run is stopping (output limit). */
type HostLog = (level: string, line: string) => unknown
/** How the program ended: [0] no value | [1, jsonText] | [2, errorText] | [3, invalidText]. */
type HostDone = (tag: 0 | 1 | 2 | 3, text: string) => void
/** Calls the model's program (an async function) and reports how it ended through hostDone. */
type Run = (program: () => unknown) => void
/** Accessors the host reads and writes: [0] take frames, [1] settle id, [2] settle text, [3] last bridge error. */
type Port = Record<number, unknown>
type Path = (string | number)[]
type Capability = { promise: Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }
type Bag = Record<PropertyKey, unknown>
/** Object.prototype's legacy accessor lookups (not in TypeScript's lib; QuickJS has them). */
type LegacyLookup = (this: unknown, key: PropertyKey) => unknown

export function prelude(
  hostLog: HostLog,
  hostDone: HostDone,
  toolNamesJson: string,
  maxArgsChars: number,
  subCallLimitsJson: string,
): [Run, Port] {
  // biome-ignore lint/suspicious/noRedundantUseStrict: the built text is evaluated as a script, not a module
  'use strict'
  const G = globalThis
  const O = Object
  const getProto = O.getPrototypeOf,
    getDesc = O.getOwnPropertyDescriptor,
    defProp = O.defineProperty
  const freeze = O.freeze,
    create = O.create
  const ownKeys = Reflect.ownKeys,
    apply = Reflect.apply
  const hasOwnFn = O.prototype.hasOwnProperty
  const hasOwn = (o: object, k: PropertyKey): boolean => apply(hasOwnFn, o, [k])
  const isArray = Array.isArray
  const ObjProto = O.prototype as object & { __lookupGetter__: LegacyLookup; __lookupSetter__: LegacyLookup },
    ArrProto = Array.prototype,
    ErrProto = Error.prototype
  const jsonStringify = JSON.stringify,
    jsonParse = JSON.parse
  const isFiniteNum = Number.isFinite
  const PromiseCtor = Promise,
    promiseThen = Promise.prototype.then,
    promiseReject = Promise.reject
  const withResolvers = PromiseCtor.withResolvers
  // Bound primordials for the per-call paths: no argument array per call (apply(f, o, [k]) allocates one).
  const bindFn = Function.prototype.bind,
    callFn = Function.prototype.call
  const hasOwnCall: (o: object, k: PropertyKey) => boolean = apply(bindFn, callFn, [hasOwnFn])
  const newCapability: () => Capability = apply(bindFn, withResolvers, [PromiseCtor])
  // Whether a property is an accessor or hidden, without a descriptor object per property (an
  // allocation that cost more than the rest of a small argument object's serialization).
  const getterOf: (o: object, k: PropertyKey) => unknown = apply(bindFn, callFn, [ObjProto.__lookupGetter__])
  const setterOf: (o: object, k: PropertyKey) => unknown = apply(bindFn, callFn, [ObjProto.__lookupSetter__])
  const isEnumerable: (o: object, k: PropertyKey) => boolean = apply(bindFn, callFn, [
    O.prototype.propertyIsEnumerable,
  ])
  const TypeErr = TypeError,
    Err = Error,
    Str = String,
    ProxyCtor = Proxy
  const MapProto = typeof Map === 'function' ? Map.prototype : undefined
  const SetProto = typeof Set === 'function' ? Set.prototype : undefined
  const DateProto = typeof Date === 'function' ? Date.prototype : undefined
  const dateToISO = DateProto ? DateProto.toISOString : undefined
  const mapEntries = MapProto ? MapProto.entries : undefined,
    setValues = SetProto ? SetProto.values : undefined
  const identRe = /^[A-Za-z_$][A-Za-z0-9_$]*$/
  const reTest = RegExp.prototype.test
  const isIdent = (k: string): boolean => apply(reTest, identRe, [k])
  const MAX_DEPTH = 64

  // ---- lossless JSON serializer (sub-call arguments and the program's result) ----
  // keys is the path from the root to v. The path text is only built for an error message: a
  // sub-call's arguments are serialized on every call, and building it eagerly (a regex test and a
  // concatenation per property) was a measurable part of the per-call cost.
  const pathText = (root: string, keys: Path): string => {
    let path = root
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string | number
      path =
        typeof key === 'number'
          ? path + '[' + key + ']'
          : isIdent(key)
            ? path + '.' + key
            : path + '[' + jsonStringify(key) + ']'
    }
    return path
  }
  const typeName = (v: object): string => {
    try {
      const proto = getProto(v)
      const ctor = proto && hasOwn(proto, 'constructor') ? getDesc(proto, 'constructor')?.value : undefined
      return typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name
        ? ctor.name
        : 'non-plain'
    } catch (_e) {
      return 'non-plain'
    }
  }
  // JSON text of property keys: JSON.stringify is one of QuickJS's slower natives (~1 us even for a
  // short key), and argument objects repeat the same few keys call after call. Bounded.
  const keyTexts: Record<string, string> = create(null)
  let keyTextCount = 0
  const keyText = (k: string): string => {
    let text = keyTexts[k]
    if (text === undefined) {
      text = jsonStringify(k)
      if (keyTextCount < 512) {
        keyTexts[k] = text
        keyTextCount++
      }
    }
    return text
  }
  // tool: the tool's name for sub-call arguments, undefined for the program's result
  const fail = (
    tool: string | undefined,
    keys: Path,
    key: string | number | undefined,
    problem: string,
  ): never => {
    if (key !== undefined) keys[keys.length] = key
    const what = tool === undefined ? "The program's return value" : 'tools.' + tool
    const path = pathText(tool === undefined ? 'result' : 'args', keys)
    throw new TypeErr(
      what +
        ': ' +
        path +
        ' ' +
        problem +
        '. Only plain JSON data can cross: objects, arrays, strings, finite numbers, booleans and null.',
    )
  }
  function ser(v: unknown, keys: Path, stack: object[], tool: string | undefined): string {
    switch (typeof v) {
      case 'string':
        return jsonStringify(v)
      case 'number':
        if (!isFiniteNum(v))
          fail(tool, keys, undefined, 'is ' + Str(v) + ', which JSON cannot represent (use null or a string)')
        // for a finite number JSON.stringify is exactly ToString (-0 gives "0" too)
        return '' + v
      case 'boolean':
        return v ? 'true' : 'false'
      case 'undefined':
        return fail(tool, keys, undefined, 'is undefined (omit the property or use null)')
      case 'bigint':
        return fail(tool, keys, undefined, 'is a BigInt (use a number or a string)')
      case 'symbol':
        return fail(tool, keys, undefined, 'is a symbol')
      case 'function':
        return fail(tool, keys, undefined, 'is a function')
    }
    if (v === null) return 'null'
    const o = v as object // every primitive answered above
    for (let i = 0; i < stack.length; i++)
      if (stack[i] === o) fail(tool, keys, undefined, 'is a circular reference')
    if (stack.length >= MAX_DEPTH)
      fail(tool, keys, undefined, 'is nested more than ' + MAX_DEPTH + ' levels deep')
    stack[stack.length] = o
    let out: string
    if (isArray(o)) {
      if (getProto(o) !== ArrProto) fail(tool, keys, undefined, 'is an array subclass (use a plain array)')
      const len = o.length
      const own = ownKeys(o)
      out = '['
      for (let i = 0; i < len; i++) {
        if (!hasOwnCall(o, i)) fail(tool, keys, i, 'is a hole in a sparse array')
        if (getterOf(o, i) !== undefined || setterOf(o, i) !== undefined)
          fail(tool, keys, i, 'is a getter/setter (use a plain value)')
        out += (i === 0 ? '' : ',') + serValue(o[i], keys, i, stack, tool)
      }
      if (own.length !== len + 1)
        fail(tool, keys, undefined, 'has properties besides its elements, which JSON drops')
      out += ']'
    } else {
      const proto = getProto(o)
      if (proto !== ObjProto && proto !== null)
        fail(tool, keys, undefined, 'is a ' + typeName(o) + ' object; only plain objects and arrays are JSON')
      const own = ownKeys(o)
      out = '{'
      for (let i = 0; i < own.length; i++) {
        const k = own[i] as string | symbol
        if (typeof k === 'symbol') return fail(tool, keys, undefined, 'has a symbol-keyed property')
        if (getterOf(o, k) !== undefined || setterOf(o, k) !== undefined)
          fail(tool, keys, k, 'is a getter/setter (use a plain value)')
        if (!isEnumerable(o, k)) fail(tool, keys, k, 'is non-enumerable, which JSON drops')
        out += (i === 0 ? '' : ',') + keyText(k) + ':' + serValue((o as Bag)[k], keys, k, stack, tool)
      }
      out += '}'
    }
    stack.length = stack.length - 1
    return out
  }
  // A property value: the common primitives inline (a call per value costs about as much as the
  // rest of its serialization); anything else goes through ser() with its key on the path.
  function serValue(
    x: unknown,
    keys: Path,
    key: string | number,
    stack: object[],
    tool: string | undefined,
  ): string {
    switch (typeof x) {
      case 'string':
        return jsonStringify(x)
      case 'number':
        if (isFiniteNum(x)) return '' + x
        break
      case 'boolean':
        return x ? 'true' : 'false'
      case 'object':
        if (x === null) return 'null'
        break
    }
    keys[keys.length] = key
    const text = ser(x, keys, stack, tool)
    keys.length = keys.length - 1
    return text
  }
  const toJsonText = (v: unknown, tool: string | undefined): string => ser(v, [], [], tool)
  // Sub-call arguments are nearly always one flat object of strings, numbers and booleans. This
  // checks and writes such an object in one pass, without ser()'s bookkeeping (its path and
  // cycle stacks, a call per value); anything else answers undefined, before reading a single
  // accessor, and takes ser(), which knows every rule and its message.
  const flatText = (v: unknown): string | undefined => {
    if (typeof v !== 'object' || v === null || isArray(v)) return undefined
    const proto = getProto(v)
    if (proto !== ObjProto && proto !== null) return undefined
    const own = ownKeys(v)
    let out = '{'
    for (let i = 0; i < own.length; i++) {
      const k = own[i]
      if (
        typeof k !== 'string' ||
        getterOf(v, k) !== undefined ||
        setterOf(v, k) !== undefined ||
        !isEnumerable(v, k)
      )
        return undefined
      const x = (v as Bag)[k]
      let text: string
      switch (typeof x) {
        case 'string':
          text = jsonStringify(x)
          break
        case 'number':
          if (!isFiniteNum(x)) return undefined
          text = '' + x
          break
        case 'boolean':
          text = x ? 'true' : 'false'
          break
        default:
          if (x !== null) return undefined
          text = 'null'
      }
      out += (i === 0 ? '' : ',') + keyText(k) + ':' + text
    }
    return out + '}'
  }

  // ---- ToolCallError ----
  class ToolCallError extends Err {
    constructor(toolName: string, message: string) {
      super(message)
      defProp(this, 'toolName', { value: toolName, enumerable: true })
    }
  }
  defProp(ToolCallError.prototype, 'name', { value: 'ToolCallError', writable: true, configurable: true })
  defProp(G, 'ToolCallError', { value: ToolCallError, writable: true, configurable: true })

  // ---- tools ----
  const names: string[] = jsonParse(toolNamesJson)
  const target: Record<PropertyKey, unknown> = create(null)
  // sub-call id -> its promise's resolvers ({ promise, resolve, reject }); null prototype so no
  // inherited setter can observe the writes
  const pending: Record<number, Capability> = create(null)
  // Refused here, a call never crosses (the host checks the same limits again, sub-calls.ts):
  // how many calls wait for an answer, their arguments' characters, and how many one run makes.
  const limits: {
    maxPending: number
    maxPendingChars: number
    maxCalls: number
    pendingText: string
    callsText: string
  } = jsonParse(subCallLimitsJson)
  const sizes: Record<number, number> = create(null)
  let outbox = '',
    nextId = 0,
    pendingCount = 0,
    pendingChars = 0,
    stopping = false
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    const frameHead = Str(i) + '\n'
    // biome-ignore lint/complexity/useArrowFunction: a tool stays an ordinary function, as the program sees it
    const fn = function (args?: unknown): Promise<unknown> {
      let text: string
      try {
        if (stopping) throw new Err('The run is ending; no more tool calls are dispatched.')
        text = args === undefined ? '{}' : (flatText(args) ?? toJsonText(args, name))
        // the host parses every argument on its own thread: how much may cross at once is bounded
        if (text.length > maxArgsChars)
          throw new TypeErr(
            'tools.' +
              name +
              ': the arguments are ' +
              text.length +
              ' characters of JSON; at most ' +
              maxArgsChars +
              ' can cross in one call. Send less per call: split the data across several calls.',
          )
      } catch (e) {
        return apply(promiseReject, PromiseCtor, [e])
      }
      const refused =
        nextId >= limits.maxCalls
          ? limits.callsText
          : pendingCount >= limits.maxPending || pendingChars + text.length > limits.maxPendingChars
            ? limits.pendingText
            : undefined
      if (refused !== undefined)
        return apply(promiseReject, PromiseCtor, [
          new ToolCallError(name, 'This ' + name + ' call was not started: ' + refused),
        ])
      const cap = newCapability()
      const id = nextId
      // The frame is the commit point: once it is in the outbox the host will dispatch it as id.
      outbox = outbox + frameHead + text + '\n'
      nextId = id + 1
      pending[id] = cap
      sizes[id] = text.length
      pendingCount++
      pendingChars += text.length
      return cap.promise
    }
    defProp(fn, 'name', { value: name })
    defProp(target, name, { value: fn, enumerable: true })
  }
  freeze(target)
  const available = names.length ? names.join(', ') : '(none)'
  const tools = new ProxyCtor(target, {
    get(t, key) {
      // t has a null prototype and only function values: a plain read is an own-property check
      const own = t[key]
      if (own !== undefined) return own
      if (typeof key !== 'string' || key === 'then' || key === 'toJSON') return undefined
      throw new TypeErr('tools.' + key + ' is not an available tool. Available tools: ' + available + '.')
    },
    set() {
      return false
    },
    defineProperty() {
      return false
    },
    deleteProperty() {
      return false
    },
    setPrototypeOf() {
      return false
    },
  })
  defProp(G, 'tools', { value: tools, enumerable: true })

  // ---- console ----
  function fmt(v: unknown, depth: number, seen: object[]): string {
    switch (typeof v) {
      case 'string':
        return depth === 0 ? v : jsonStringify(v)
      case 'number':
        return v === 0 && 1 / v < 0 ? '-0' : Str(v)
      case 'bigint':
        return Str(v) + 'n'
      case 'boolean':
      case 'undefined':
        return Str(v)
      case 'symbol':
        try {
          return v.toString()
        } catch (_e) {
          return 'Symbol()'
        }
      case 'function':
        return '[Function ' + (typeof v.name === 'string' && v.name ? v.name : '(anonymous)') + ']'
    }
    if (v === null) return 'null'
    const o = v as object // every primitive answered above
    for (let i = 0; i < seen.length; i++) if (seen[i] === o) return '[Circular]'
    let proto: object | null | undefined
    try {
      proto = getProto(o)
    } catch (_e) {
      proto = undefined
    }
    let isErr = false
    for (let p = proto; p; p = getProto(p))
      if (p === ErrProto) {
        isErr = true
        break
      }
    if (isErr) {
      let name = 'Error',
        message = ''
      try {
        name = Str((o as Bag).name)
        message = Str((o as Bag).message)
      } catch (_e) {}
      return message ? name + ': ' + message : name
    }
    if (DateProto && proto === DateProto) {
      try {
        return apply(dateToISO as () => string, o, [])
      } catch (_e) {
        return 'Invalid Date'
      }
    }
    if (depth > 5) return isArray(o) ? '[Array]' : '[Object]'
    seen[seen.length] = o
    let out: string
    try {
      if (isArray(o)) {
        out = '['
        for (let i = 0; i < o.length; i++) out += (i ? ', ' : '') + fmt(o[i], depth + 1, seen)
        out += ']'
      } else if (MapProto && proto === MapProto) {
        const map = o as Map<unknown, unknown>
        out = 'Map(' + map.size + ') {'
        let i = 0
        for (const [k, val] of apply(mapEntries as () => MapIterator<[unknown, unknown]>, map, []))
          out += (i++ ? ', ' : '') + fmt(k, depth + 1, seen) + ' => ' + fmt(val, depth + 1, seen)
        out += '}'
      } else if (SetProto && proto === SetProto) {
        const set = o as Set<unknown>
        out = 'Set(' + set.size + ') {'
        let i = 0
        for (const val of apply(setValues as () => SetIterator<unknown>, set, []))
          out += (i++ ? ', ' : '') + fmt(val, depth + 1, seen)
        out += '}'
      } else {
        const keys = ownKeys(o)
        const prefix = proto === ObjProto || proto === null ? '' : typeName(o) + ' '
        out = prefix + '{'
        let n = 0
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i] as string | symbol
          if (typeof k === 'symbol') continue
          const d = getDesc(o, k)
          if (!d?.enumerable) continue
          const shown = hasOwn(d, 'value') ? fmt(d.value, depth + 1, seen) : '[Getter]'
          out += (n++ ? ', ' : '') + jsonStringify(k) + ': ' + shown
        }
        out += '}'
      }
    } catch (_e) {
      out = '[' + typeName(o) + ']'
    }
    seen.length = seen.length - 1
    return out
  }
  const makeLog = (level: string) =>
    function () {
      let line = ''
      // biome-ignore lint/complexity/noArguments: no rest-parameter array per console call
      for (let i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + fmt(arguments[i], 0, [])
      if (hostLog(level, line)) stopping = true
    }
  const consoleObj = create(null)
  const levels = ['log', 'info', 'debug', 'warn', 'error']
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i] as string
    defProp(consoleObj, level, { value: makeLog(level), enumerable: true })
  }
  defProp(G, 'console', { value: freeze(consoleObj), writable: true, configurable: true })

  // ---- Promise: the executor runs from JS, not from inside the native constructor ----
  // QuickJS's native constructor turns ANY exception thrown by the executor into a rejection, the
  // uncatchable deadline interrupt included; with a loop period dividing the interrupt interval,
  // for (;;) new Promise(() => {}) swallowed every interrupt (measured: > 6 min past a 300 ms
  // deadline). Here the executor is called by JS code, which lets the interrupt through.
  // biome-ignore lint/suspicious/noShadowRestrictedNames: the program sees this constructor as Promise (its name)
  const SafePromise = function Promise(
    executor: (resolve: (v: unknown) => void, reject: (e: unknown) => void) => void,
  ): Promise<unknown> {
    if (new.target === undefined) throw new TypeErr("Promise constructor cannot be invoked without 'new'")
    if (new.target !== SafePromise) return Reflect.construct(PromiseCtor, [executor], new.target)
    if (typeof executor !== 'function') throw new TypeErr('Promise resolver is not a function')
    const r = apply(withResolvers, PromiseCtor, []) as Capability
    try {
      executor(r.resolve, r.reject)
    } catch (e) {
      r.reject(e)
    }
    return r.promise
  }
  defProp(SafePromise, 'prototype', { value: PromiseCtor.prototype })
  const statics = ['resolve', 'reject', 'all', 'allSettled', 'any', 'race', 'withResolvers']
  for (let i = 0; i < statics.length; i++) {
    const key = statics[i] as string
    const native = (PromiseCtor as unknown as Bag)[key]
    if (typeof native === 'function')
      defProp(SafePromise, key, {
        value: function () {
          // biome-ignore lint/complexity/noArguments: forwarded unchanged
          return apply(native, PromiseCtor, arguments)
        },
        writable: true,
        configurable: true,
      })
  }
  defProp(G, 'Promise', { value: SafePromise, writable: true, configurable: true })

  // ---- no code generation from strings ----
  // biome-ignore lint/complexity/useArrowFunction: `new Function(...)` must throw this error too
  const blocked = function () {
    throw new Err(
      'Code generation from strings (eval, Function) is disabled in run_code. Write the code directly.',
    )
  }
  const FunctionProto = Function.prototype
  const blockCtor = (proto: object | null) => {
    if (proto) defProp(proto, 'constructor', { value: blocked, writable: false, configurable: false })
  }
  blockCtor(FunctionProto)
  blockCtor(getProto(async () => {}))
  blockCtor(getProto(function* () {}))
  blockCtor(getProto(async function* () {}))
  defProp(blocked, 'prototype', { value: FunctionProto })
  defProp(G, 'Function', { value: blocked, writable: false, configurable: false })
  defProp(G, 'eval', { value: blocked, writable: false, configurable: false })

  // ---- the runner: call the program, report [0] | [1, jsonText] | [2, errorText] | [3, invalidText] ----
  const describeError = (e: unknown): string => {
    try {
      if (e !== null && typeof e === 'object') {
        const name = Str((e as Bag).name),
          message = Str((e as Bag).message)
        const stack = typeof (e as Bag).stack === 'string' ? ((e as Bag).stack as string) : ''
        const head = message ? name + ': ' + message : name
        const toolName = typeof (e as Bag).toolName === 'string' ? (e as Bag).toolName : undefined
        return jsonStringify({ head: head, name: name, stack: stack, toolName: toolName })
      }
      return jsonStringify({ head: fmt(e, 1, []), name: 'Thrown', stack: '' })
    } catch (_err) {
      return jsonStringify({
        head: 'Uncaught exception (it could not be described)',
        name: 'Thrown',
        stack: '',
      })
    }
  }
  // ---- the port: how the host talks to the bridge ----
  // Reading port[0] takes the sub-calls made since the last read, as '<tool index>\n<args JSON>\n'
  // frames. Settling a sub-call is two writes: port[1] = its id (-id - 1 for a failure), then
  // port[2] = its JSON text, the value or ["message", "tool name"]; the host writes every
  // settlement it has, then one job pump runs the program's continuations. An accessor read or
  // write crosses from the host without the argument marshalling of a function call (measured
  // ~0.5 us instead of ~2 us), and a number plus a value's own text parse faster than one JSON
  // array of every settlement (measured 0.6 us against 2.4 us for one settlement). A setter's
  // exception would be lost on the host side, so settling catches and keeps the last message in
  // port[3], which the host reads only to explain a stuck run.
  let bridgeError: string | undefined
  const noteError = (e: unknown) => {
    try {
      bridgeError = e !== null && typeof e === 'object' ? Str((e as Bag).message) : Str(e)
    } catch (_x) {
      bridgeError = 'unknown error'
    }
  }
  let settling = 0
  const settleId = (id: number) => {
    settling = id
  }
  const settleText = (text: string) => {
    const failed = settling < 0
    const id = failed ? -settling - 1 : settling
    const r = pending[id]
    if (r === undefined) return
    delete pending[id]
    pendingCount--
    pendingChars -= sizes[id] as number
    delete sizes[id]
    try {
      const value = jsonParse(text)
      if (!failed) r.resolve(value)
      else r.reject(new ToolCallError(value[1], value[0]))
    } catch (e) {
      noteError(e)
      try {
        r.reject(e)
      } catch (_x) {}
    }
  }
  const take = () => {
    const frames = outbox
    outbox = ''
    return frames
  }
  const port: Port = create(null)
  defProp(port, 0, { get: take })
  defProp(port, 1, { set: settleId })
  defProp(port, 2, { set: settleText })
  defProp(port, 3, { get: () => bridgeError })
  const done = (tag: 0 | 1 | 2 | 3, text: string) => {
    hostDone(tag, text)
  }
  const run: Run = (program) => {
    let p: unknown
    try {
      p = program()
    } catch (e) {
      done(2, describeError(e))
      return
    }
    apply(promiseThen, p, [
      (v: unknown) => {
        if (v === undefined) return done(0, '')
        let text: string
        try {
          text = toJsonText(v, undefined)
        } catch (e) {
          return done(3, Str((e as Bag).message))
        }
        done(1, text)
      },
      (e: unknown) => done(2, describeError(e)),
    ])
  }
  return [run, port]
}
