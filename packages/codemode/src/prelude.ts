/**
 * JavaScript that runs INSIDE the QuickJS context before the model's program. It is evaluated to a
 * function and called once with three host functions; the host functions are closed over, never
 * placed on the global object, so the program cannot reach them.
 *
 * - `tools`: a frozen Proxy over a null-prototype object; one property per tool (defineProperty, so
 *   a tool named `__proto__` is an ordinary property). A missing name throws a TypeError that lists
 *   the tools instead of QuickJS's bare "not a function".
 * - Sub-call arguments are serialized HERE by a lossless serializer (plain objects/arrays, strings,
 *   finite numbers, booleans, null; no accessors, symbols, holes, cycles, class instances). If the
 *   value is not lossless the call's promise rejects in the VM and nothing reaches the host.
 * - Results come back as JSON text and are re-created with the VM's own JSON.parse.
 * - Failures reject with `ToolCallError` (name, toolName, message; no internal codes; seed 001 §6.10).
 * - `console.log/info/debug/warn/error` format in the VM and hand one line of text to the host.
 * - Code generation from strings (`eval`, `Function`, and the async/generator constructors) is
 *   disabled: QuickJS's parser recurses on the host stack without a depth check, and a program could
 *   otherwise build a string that crashes the host process. Program text is depth-checked on the
 *   host before it is compiled (strip.ts).
 * Primordials are captured up front so the program cannot break the bridge by patching builtins.
 */
export const PRELUDE_SOURCE = String.raw`(function (hostCall, hostLog, hostDone, toolNamesJson) {
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
  const childPath = (path, key) => (typeof key === 'number' ? path + '[' + key + ']' : isIdent(key) ? path + '.' + key : path + '[' + jsonStringify(key) + ']');
  const typeName = (v) => {
    try {
      const proto = getProto(v);
      const ctor = proto && hasOwn(proto, 'constructor') ? getDesc(proto, 'constructor').value : undefined;
      return typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name ? ctor.name : 'non-plain';
    } catch (e) { return 'non-plain'; }
  };
  function ser(v, path, stack, fail) {
    switch (typeof v) {
      case 'string': return jsonStringify(v);
      case 'number':
        if (!isFiniteNum(v)) fail(path, 'is ' + Str(v) + ', which JSON cannot represent (use null or a string)');
        return jsonStringify(v);
      case 'boolean': return v ? 'true' : 'false';
      case 'undefined': fail(path, 'is undefined (omit the property or use null)');
      case 'bigint': fail(path, 'is a BigInt (use a number or a string)');
      case 'symbol': fail(path, 'is a symbol');
      case 'function': fail(path, 'is a function');
    }
    if (v === null) return 'null';
    for (let i = 0; i < stack.length; i++) if (stack[i] === v) fail(path, 'is a circular reference');
    if (stack.length >= MAX_DEPTH) fail(path, 'is nested more than ' + MAX_DEPTH + ' levels deep');
    stack[stack.length] = v;
    let out;
    if (isArray(v)) {
      if (getProto(v) !== ArrProto) fail(path, 'is an array subclass (use a plain array)');
      const len = v.length;
      const keys = ownKeys(v);
      out = '[';
      for (let i = 0; i < len; i++) {
        const d = getDesc(v, Str(i));
        if (d === undefined) fail(childPath(path, i), 'is a hole in a sparse array');
        if (!hasOwn(d, 'value')) fail(childPath(path, i), 'is a getter/setter (use a plain value)');
        out += (i === 0 ? '' : ',') + ser(d.value, childPath(path, i), stack, fail);
      }
      if (keys.length !== len + 1) fail(path, 'has properties besides its elements, which JSON drops');
      out += ']';
    } else {
      const proto = getProto(v);
      if (proto !== ObjProto && proto !== null) fail(path, 'is a ' + typeName(v) + ' object; only plain objects and arrays are JSON');
      const keys = ownKeys(v);
      out = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (typeof k === 'symbol') fail(path, 'has a symbol-keyed property');
        const d = getDesc(v, k);
        if (!hasOwn(d, 'value')) fail(childPath(path, k), 'is a getter/setter (use a plain value)');
        if (!d.enumerable) fail(childPath(path, k), 'is non-enumerable, which JSON drops');
        out += (i === 0 ? '' : ',') + jsonStringify(k) + ':' + ser(d.value, childPath(path, k), stack, fail);
      }
      out += '}';
    }
    stack.length = stack.length - 1;
    return out;
  }
  function toJsonText(v, root, what) {
    return ser(v, root, [], (path, problem) => {
      throw new TypeErr(what + ': ' + path + ' ' + problem + '. Only plain JSON data can cross: objects, arrays, strings, finite numbers, booleans and null.');
    });
  }

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
  // sub-call id -> [resolve, reject]; null prototype so no inherited setter can observe the writes
  const resolvers = create(null);
  const parseResult = (text) => jsonParse(text);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const fail = (message) => { throw new ToolCallError(name, message); };
    const fn = function (args) {
      let text, id;
      try {
        text = args === undefined ? '{}' : toJsonText(args, 'args', 'tools.' + name);
        id = hostCall(name, text);
      } catch (e) {
        return apply(promiseReject, PromiseCtor, [e]);
      }
      const p = new PromiseCtor((resolve, reject) => { resolvers[id] = [resolve, reject]; });
      return apply(promiseThen, p, [parseResult, fail]);
    };
    defProp(fn, 'name', { value: name });
    defProp(target, name, { value: fn, enumerable: true });
  }
  freeze(target);
  const available = names.length ? names.join(', ') : '(none)';
  const tools = new ProxyCtor(target, {
    get(t, key) {
      if (hasOwn(t, key)) return t[key];
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
    hostLog(level, line);
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
  const withResolvers = PromiseCtor.withResolvers;
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
  // settle('<id>|<1 or 0>|<json text or message>'): one string per settlement keeps host<->VM crossings low
  const strIndexOf = String.prototype.indexOf, strSlice = String.prototype.slice;
  const settle = function (packed) {
    const a = apply(strIndexOf, packed, ['|']);
    const id = apply(strSlice, packed, [0, a]);
    const r = resolvers[id];
    if (r === undefined) return;
    delete resolvers[id];
    const ok = apply(strSlice, packed, [a + 1, a + 2]) === '1';
    (ok ? r[0] : r[1])(apply(strSlice, packed, [a + 3]));
  };
  const done = (tag, text) => { hostDone(tag, text); };
  const run = function (program) {
    let p;
    try { p = program(); } catch (e) { done(2, describeError(e)); return; }
    apply(promiseThen, p, [
      (v) => {
        if (v === undefined) return done(0, '');
        let text;
        try { text = toJsonText(v, 'result', 'The program\'s return value'); }
        catch (e) { return done(3, Str(e.message)); }
        done(1, text);
      },
      (e) => done(2, describeError(e)),
    ]);
  };
  return [run, settle];
})`
