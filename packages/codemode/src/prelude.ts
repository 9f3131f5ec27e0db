/**
 * JavaScript that runs INSIDE the QuickJS context before the model's program. It is evaluated to a
 * function and called once with two host functions, the tool names and the arguments cap; the host functions are closed over, never
 * placed on the global object, so the program cannot reach them. It returns `[run, port]`, which
 * only the host holds.
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
 */
const PRELUDE_TEXT = String.raw`(function (hostLog, hostDone, toolNamesJson, maxArgsChars) {
  'use strict';
  const G = globalThis;
  const O = Object;
  const getProto = O.getPrototypeOf, getDesc = O.getOwnPropertyDescriptor, defProp = O.defineProperty;
  const freeze = O.freeze, create = O.create;
  const ownKeys = Reflect.ownKeys, apply = Reflect.apply;
  const hasOwnFn = O.prototype.hasOwnProperty;
  const hasOwn = (o, k) => apply(hasOwnFn, o, [k]);
  const isArray = Array.isArray;
  const ObjProto = O.prototype, ArrProto = Array.prototype, ErrProto = Error.prototype;
  const jsonStringify = JSON.stringify, jsonParse = JSON.parse;
  const isFiniteNum = Number.isFinite, isIntegerNum = Number.isInteger;
  const PromiseCtor = Promise, promiseThen = Promise.prototype.then, promiseReject = Promise.reject;
  const withResolvers = PromiseCtor.withResolvers;
  // Bound primordials for the per-call paths: no argument array per call (apply(f, o, [k]) allocates one).
  const bindFn = Function.prototype.bind, callFn = Function.prototype.call;
  const hasOwnCall = apply(bindFn, callFn, [hasOwnFn]);
  const newCapability = apply(bindFn, withResolvers, [PromiseCtor]);
  // Whether a property is an accessor or hidden, without a descriptor object per property (an
  // allocation that cost more than the rest of a small argument object's serialization).
  const getterOf = apply(bindFn, callFn, [ObjProto.__lookupGetter__]);
  const setterOf = apply(bindFn, callFn, [ObjProto.__lookupSetter__]);
  const isEnumerable = apply(bindFn, callFn, [ObjProto.propertyIsEnumerable]);
  const TypeErr = TypeError, Err = Error, Str = String, ProxyCtor = Proxy;
  const MapProto = typeof Map === 'function' ? Map.prototype : undefined;
  const SetProto = typeof Set === 'function' ? Set.prototype : undefined;
  const DateProto = typeof Date === 'function' ? Date.prototype : undefined;
  const dateToISO = DateProto ? DateProto.toISOString : undefined;
  const mapEntries = MapProto ? MapProto.entries : undefined, setValues = SetProto ? SetProto.values : undefined;
  const identRe = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const reTest = RegExp.prototype.test;
  const isIdent = (k) => apply(reTest, identRe, [k]);
  const MAX_DEPTH = 64;

  // ---- lossless JSON serializer (sub-call arguments and the program's result) ----
  // keys is the path from the root to v. The path text is only built for an error message: a
  // sub-call's arguments are serialized on every call, and building it eagerly (a regex test and a
  // concatenation per property) was a measurable part of the per-call cost.
  const pathText = (root, keys) => {
    let path = root;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      path = typeof key === 'number' ? path + '[' + key + ']' : isIdent(key) ? path + '.' + key : path + '[' + jsonStringify(key) + ']';
    }
    return path;
  };
  const typeName = (v) => {
    try {
      const proto = getProto(v);
      const ctor = proto && hasOwn(proto, 'constructor') ? getDesc(proto, 'constructor').value : undefined;
      return typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name ? ctor.name : 'non-plain';
    } catch (e) { return 'non-plain'; }
  };
  // JSON text of property keys: JSON.stringify is one of QuickJS's slower natives (~1 us even for a
  // short key), and argument objects repeat the same few keys call after call. Bounded.
  const keyTexts = create(null);
  let keyTextCount = 0;
  const keyText = (k) => {
    let text = keyTexts[k];
    if (text === undefined) {
      text = jsonStringify(k);
      if (keyTextCount < 512) { keyTexts[k] = text; keyTextCount++; }
    }
    return text;
  };
  // tool: the tool's name for sub-call arguments, undefined for the program's result
  const fail = (tool, keys, key, problem) => {
    if (key !== undefined) keys[keys.length] = key;
    const what = tool === undefined ? "The program's return value" : 'tools.' + tool;
    const path = pathText(tool === undefined ? 'result' : 'args', keys);
    throw new TypeErr(what + ': ' + path + ' ' + problem + '. Only plain JSON data can cross: objects, arrays, strings, finite numbers, booleans and null.');
  };
  function ser(v, keys, stack, tool) {
    switch (typeof v) {
      case 'string': return jsonStringify(v);
      case 'number':
        if (!isFiniteNum(v)) fail(tool, keys, undefined, 'is ' + Str(v) + ', which JSON cannot represent (use null or a string)');
        // for a finite number JSON.stringify is exactly ToString (-0 gives "0" too)
        return '' + v;
      case 'boolean': return v ? 'true' : 'false';
      case 'undefined': fail(tool, keys, undefined, 'is undefined (omit the property or use null)');
      case 'bigint': fail(tool, keys, undefined, 'is a BigInt (use a number or a string)');
      case 'symbol': fail(tool, keys, undefined, 'is a symbol');
      case 'function': fail(tool, keys, undefined, 'is a function');
    }
    if (v === null) return 'null';
    for (let i = 0; i < stack.length; i++) if (stack[i] === v) fail(tool, keys, undefined, 'is a circular reference');
    if (stack.length >= MAX_DEPTH) fail(tool, keys, undefined, 'is nested more than ' + MAX_DEPTH + ' levels deep');
    stack[stack.length] = v;
    let out;
    if (isArray(v)) {
      if (getProto(v) !== ArrProto) fail(tool, keys, undefined, 'is an array subclass (use a plain array)');
      const len = v.length;
      const own = ownKeys(v);
      out = '[';
      for (let i = 0; i < len; i++) {
        if (!hasOwnCall(v, i)) fail(tool, keys, i, 'is a hole in a sparse array');
        if (getterOf(v, i) !== undefined || setterOf(v, i) !== undefined) fail(tool, keys, i, 'is a getter/setter (use a plain value)');
        out += (i === 0 ? '' : ',') + serValue(v[i], keys, i, stack, tool);
      }
      if (own.length !== len + 1) fail(tool, keys, undefined, 'has properties besides its elements, which JSON drops');
      out += ']';
    } else {
      const proto = getProto(v);
      if (proto !== ObjProto && proto !== null) fail(tool, keys, undefined, 'is a ' + typeName(v) + ' object; only plain objects and arrays are JSON');
      const own = ownKeys(v);
      out = '{';
      for (let i = 0; i < own.length; i++) {
        const k = own[i];
        if (typeof k === 'symbol') fail(tool, keys, undefined, 'has a symbol-keyed property');
        if (getterOf(v, k) !== undefined || setterOf(v, k) !== undefined) fail(tool, keys, k, 'is a getter/setter (use a plain value)');
        if (!isEnumerable(v, k)) fail(tool, keys, k, 'is non-enumerable, which JSON drops');
        out += (i === 0 ? '' : ',') + keyText(k) + ':' + serValue(v[k], keys, k, stack, tool);
      }
      out += '}';
    }
    stack.length = stack.length - 1;
    return out;
  }
  // A property value: the common primitives inline (a call per value costs about as much as the
  // rest of its serialization); anything else goes through ser() with its key on the path.
  function serValue(x, keys, key, stack, tool) {
    switch (typeof x) {
      case 'string': return jsonStringify(x);
      case 'number': if (isFiniteNum(x)) return '' + x; break;
      case 'boolean': return x ? 'true' : 'false';
      case 'object': if (x === null) return 'null'; break;
    }
    keys[keys.length] = key;
    const text = ser(x, keys, stack, tool);
    keys.length = keys.length - 1;
    return text;
  }
  const toJsonText = (v, tool) => ser(v, [], [], tool);
  // Sub-call arguments are nearly always one flat object of strings, numbers and booleans. This
  // checks and writes such an object in one pass, without ser()'s bookkeeping (its path and
  // cycle stacks, a call per value); anything else answers undefined, before reading a single
  // accessor, and takes ser(), which knows every rule and its message.
  const flatText = (v) => {
    if (typeof v !== 'object' || v === null || isArray(v)) return undefined;
    const proto = getProto(v);
    if (proto !== ObjProto && proto !== null) return undefined;
    const own = ownKeys(v);
    let out = '{';
    for (let i = 0; i < own.length; i++) {
      const k = own[i];
      if (typeof k !== 'string' || getterOf(v, k) !== undefined || setterOf(v, k) !== undefined || !isEnumerable(v, k)) return undefined;
      const x = v[k];
      let text;
      switch (typeof x) {
        case 'string': text = jsonStringify(x); break;
        case 'number': if (!isFiniteNum(x)) return undefined; text = '' + x; break;
        case 'boolean': text = x ? 'true' : 'false'; break;
        default: if (x !== null) return undefined; text = 'null';
      }
      out += (i === 0 ? '' : ',') + keyText(k) + ':' + text;
    }
    return out + '}';
  };

  // ---- ToolCallError ----
  class ToolCallError extends Err {
    constructor(toolName, message) {
      super(message);
      defProp(this, 'toolName', { value: toolName, enumerable: true });
    }
  }
  defProp(ToolCallError.prototype, 'name', { value: 'ToolCallError', writable: true, configurable: true });
  defProp(G, 'ToolCallError', { value: ToolCallError, writable: true, configurable: true });

  // ---- tools ----
  const names = jsonParse(toolNamesJson);
  const target = create(null);
  // sub-call id -> its promise's resolvers ({ promise, resolve, reject }); null prototype so no
  // inherited setter can observe the writes
  const pending = create(null);
  let outbox = '', nextId = 0, stopping = false;
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const frameHead = Str(i) + '\n';
    const fn = function (args) {
      let text;
      try {
        if (stopping) throw new Err('The run is ending; no more tool calls are dispatched.');
        text = args === undefined ? '{}' : flatText(args) ?? toJsonText(args, name);
        // the host parses every argument on its own thread: how much may cross at once is bounded
        if (text.length > maxArgsChars) throw new TypeErr('tools.' + name + ': the arguments are ' + text.length + ' characters of JSON; at most ' + maxArgsChars + ' can cross in one call. Send less per call: split the data across several calls.');
      } catch (e) {
        return apply(promiseReject, PromiseCtor, [e]);
      }
      const cap = newCapability();
      const id = nextId;
      // The frame is the commit point: once it is in the outbox the host will dispatch it as id.
      outbox = outbox + frameHead + text + '\n';
      nextId = id + 1;
      pending[id] = cap;
      return cap.promise;
    };
    defProp(fn, 'name', { value: name });
    defProp(target, name, { value: fn, enumerable: true });
  }
  freeze(target);
  const available = names.length ? names.join(', ') : '(none)';
  const tools = new ProxyCtor(target, {
    get(t, key) {
      // t has a null prototype and only function values: a plain read is an own-property check
      const own = t[key];
      if (own !== undefined) return own;
      if (typeof key !== 'string' || key === 'then' || key === 'toJSON') return undefined;
      throw new TypeErr('tools.' + key + ' is not an available tool. Available tools: ' + available + '.');
    },
    set() { return false; }, defineProperty() { return false; }, deleteProperty() { return false; },
    setPrototypeOf() { return false; },
  });
  defProp(G, 'tools', { value: tools, enumerable: true });

  // ---- console ----
  function fmt(v, depth, seen) {
    switch (typeof v) {
      case 'string': return depth === 0 ? v : jsonStringify(v);
      case 'number': return v === 0 && 1 / v < 0 ? '-0' : Str(v);
      case 'bigint': return Str(v) + 'n';
      case 'boolean': case 'undefined': return Str(v);
      case 'symbol': try { return v.toString(); } catch (e) { return 'Symbol()'; }
      case 'function': return '[Function ' + (typeof v.name === 'string' && v.name ? v.name : '(anonymous)') + ']';
    }
    if (v === null) return 'null';
    for (let i = 0; i < seen.length; i++) if (seen[i] === v) return '[Circular]';
    let proto;
    try { proto = getProto(v); } catch (e) { proto = undefined; }
    let isErr = false;
    for (let p = proto; p; p = getProto(p)) if (p === ErrProto) { isErr = true; break; }
    if (isErr) {
      let name = 'Error', message = '';
      try { name = Str(v.name); message = Str(v.message); } catch (e) {}
      return message ? name + ': ' + message : name;
    }
    if (DateProto && proto === DateProto) { try { return apply(dateToISO, v, []); } catch (e) { return 'Invalid Date'; } }
    if (depth > 5) return isArray(v) ? '[Array]' : '[Object]';
    seen[seen.length] = v;
    let out;
    try {
      if (isArray(v)) {
        out = '[';
        for (let i = 0; i < v.length; i++) out += (i ? ', ' : '') + fmt(v[i], depth + 1, seen);
        out += ']';
      } else if (MapProto && proto === MapProto) {
        out = 'Map(' + v.size + ') {';
        let i = 0;
        for (const [k, val] of apply(mapEntries, v, [])) out += (i++ ? ', ' : '') + fmt(k, depth + 1, seen) + ' => ' + fmt(val, depth + 1, seen);
        out += '}';
      } else if (SetProto && proto === SetProto) {
        out = 'Set(' + v.size + ') {';
        let i = 0;
        for (const val of apply(setValues, v, [])) out += (i++ ? ', ' : '') + fmt(val, depth + 1, seen);
        out += '}';
      } else {
        const keys = ownKeys(v);
        const prefix = proto === ObjProto || proto === null ? '' : typeName(v) + ' ';
        out = prefix + '{';
        let n = 0;
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          if (typeof k === 'symbol') continue;
          const d = getDesc(v, k);
          if (!d || !d.enumerable) continue;
          const shown = hasOwn(d, 'value') ? fmt(d.value, depth + 1, seen) : '[Getter]';
          out += (n++ ? ', ' : '') + jsonStringify(k) + ': ' + shown;
        }
        out += '}';
      }
    } catch (e) {
      out = '[' + typeName(v) + ']';
    }
    seen.length = seen.length - 1;
    return out;
  }
  const makeLog = (level) => function () {
    let line = '';
    for (let i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + fmt(arguments[i], 0, []);
    if (hostLog(level, line)) stopping = true;
  };
  const consoleObj = create(null);
  const levels = ['log', 'info', 'debug', 'warn', 'error'];
  for (let i = 0; i < levels.length; i++) defProp(consoleObj, levels[i], { value: makeLog(levels[i]), enumerable: true });
  defProp(G, 'console', { value: freeze(consoleObj), writable: true, configurable: true });

  // ---- Promise: the executor runs from JS, not from inside the native constructor ----
  // QuickJS's native constructor turns ANY exception thrown by the executor into a rejection, the
  // uncatchable deadline interrupt included; with a loop period dividing the interrupt interval,
  // for (;;) new Promise(() => {}) swallowed every interrupt (measured: > 6 min past a 300 ms
  // deadline). Here the executor is called by JS code, which lets the interrupt through.
  const SafePromise = function Promise(executor) {
    if (new.target === undefined) throw new TypeErr("Promise constructor cannot be invoked without 'new'");
    if (new.target !== SafePromise) return Reflect.construct(PromiseCtor, [executor], new.target);
    if (typeof executor !== 'function') throw new TypeErr('Promise resolver is not a function');
    const r = apply(withResolvers, PromiseCtor, []);
    try { executor(r.resolve, r.reject); } catch (e) { r.reject(e); }
    return r.promise;
  };
  defProp(SafePromise, 'prototype', { value: PromiseCtor.prototype });
  const statics = ['resolve', 'reject', 'all', 'allSettled', 'any', 'race', 'withResolvers'];
  for (let i = 0; i < statics.length; i++) {
    const native = PromiseCtor[statics[i]];
    if (typeof native === 'function') defProp(SafePromise, statics[i], { value: function () { return apply(native, PromiseCtor, arguments); }, writable: true, configurable: true });
  }
  defProp(G, 'Promise', { value: SafePromise, writable: true, configurable: true });

  // ---- no code generation from strings ----
  const blocked = function () { throw new Err('Code generation from strings (eval, Function) is disabled in run_code. Write the code directly.'); };
  const FunctionProto = Function.prototype;
  const blockCtor = (proto) => { if (proto) defProp(proto, 'constructor', { value: blocked, writable: false, configurable: false }); };
  blockCtor(FunctionProto);
  blockCtor(getProto(async function () {}));
  blockCtor(getProto(function* () {}));
  blockCtor(getProto(async function* () {}));
  defProp(blocked, 'prototype', { value: FunctionProto });
  defProp(G, 'Function', { value: blocked, writable: false, configurable: false });
  defProp(G, 'eval', { value: blocked, writable: false, configurable: false });

  // ---- the runner: call the program, report [0] | [1, jsonText] | [2, errorText] | [3, invalidText] ----
  const describeError = (e) => {
    try {
      if (e !== null && typeof e === 'object') {
        const name = Str(e.name), message = Str(e.message);
        const stack = typeof e.stack === 'string' ? e.stack : '';
        const head = message ? name + ': ' + message : name;
        const toolName = typeof e.toolName === 'string' ? e.toolName : undefined;
        return jsonStringify({ head: head, name: name, stack: stack, toolName: toolName });
      }
      return jsonStringify({ head: fmt(e, 1, []), name: 'Thrown', stack: '' });
    } catch (err) {
      return jsonStringify({ head: 'Uncaught exception (it could not be described)', name: 'Thrown', stack: '' });
    }
  };
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
  let bridgeError;
  const noteError = (e) => {
    try { bridgeError = e !== null && typeof e === 'object' ? Str(e.message) : Str(e); } catch (x) { bridgeError = 'unknown error'; }
  };
  let settling = 0;
  const settleId = function (id) { settling = id; };
  const settleText = function (text) {
    const failed = settling < 0;
    const id = failed ? -settling - 1 : settling;
    const r = pending[id];
    if (r === undefined) return;
    delete pending[id];
    try {
      const value = jsonParse(text);
      if (!failed) r.resolve(value);
      else r.reject(new ToolCallError(value[1], value[0]));
    } catch (e) {
      noteError(e);
      try { r.reject(e); } catch (x) {}
    }
  };
  const take = function () {
    const frames = outbox;
    outbox = '';
    return frames;
  };
  const port = create(null);
  defProp(port, 0, { get: take });
  defProp(port, 1, { set: settleId });
  defProp(port, 2, { set: settleText });
  defProp(port, 3, { get: () => bridgeError });
  const done = (tag, text) => { hostDone(tag, text); };
  const run = function (program) {
    let p;
    try { p = program(); } catch (e) { done(2, describeError(e)); return; }
    apply(promiseThen, p, [
      (v) => {
        if (v === undefined) return done(0, '');
        let text;
        try { text = toJsonText(v, undefined); }
        catch (e) { return done(3, Str(e.message)); }
        done(1, text);
      },
      (e) => done(2, describeError(e)),
    ]);
  };
  return [run, port];
})`

/**
 * What QuickJS compiles for every run: the text above with comment lines and indentation blanked.
 * Compiling the prelude is most of a run's cold start (measured ~2.5 ms of ~4 ms on the shared
 * machine) and blanking saved ~7% of it. The prelude has no multi-line string or template
 * literal, so nothing else changes; lines are kept, so automatic semicolon insertion and the line
 * numbers in the prelude's own stack frames stay as they were.
 */
export const PRELUDE_SOURCE = PRELUDE_TEXT.split('\n')
  .map((line) => {
    const code = line.trimStart()
    return code.startsWith('//') ? '' : code
  })
  .join('\n')
