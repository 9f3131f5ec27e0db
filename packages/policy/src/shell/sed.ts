/**
 * A scanner for GNU sed scripts (sed 4.9, checked against `sed --debug` in the tests). It reads
 * addresses and every command well enough to find the ones that write files (`w`, `W`, `s///w`),
 * run commands (`e`, `s///e`) or read other files (`r`, `R`). Where GNU sed ends a part matters:
 *
 * - labels of `:`, `b`, `t`, `T` end at `;` or a blank (`:a;w FILE` writes FILE), and so does `v`;
 * - `a`, `i`, `c` text and `r R w W e` arguments run to the end of the line (`r x;w y` reads the
 *   file `x;w y`);
 * - in a regex a bracket expression is one unit: `s/[/]/x/w FILE` ends its regex after `]/`.
 *
 * Where the scanner ends a part earlier than sed would, the rest is read as commands, which only
 * adds refusals; it never ends a part later than sed. Anything else is "not analysed".
 */
export type SedScan =
  | { readonly kind: 'prints'; readonly reads: readonly string[] }
  | { readonly kind: 'writes'; readonly why: string; readonly files: readonly string[] }
  | { readonly kind: 'runs'; readonly why: string }
  | { readonly kind: 'unsure'; readonly why: string }

// GNU sed writes these without opening a file.
const SPECIAL_OUTPUT = new Set(['/dev/stdout', '/dev/stderr'])

export function scanSedScript(script: string): SedScan {
  let i = 0
  const n = script.length
  const reads: string[] = []
  const writes: string[] = []
  const isBlank = (c: string | undefined) => c === ' ' || c === '\t'
  const skipBlank = () => {
    while (i < n && isBlank(script[i])) i++
  }
  const restOfLine = (): string => {
    const start = i
    while (i < n && script[i] !== '\n') i++
    return script.slice(start, i)
  }
  // A label or a version: up to `;`, a blank, a newline or a closing brace.
  const word = (): string => {
    const start = i
    while (i < n && !';\n }#'.includes(script[i]!) && !isBlank(script[i])) i++
    return script.slice(start, i)
  }
  // A regex up to `delim`: backslash escapes, bracket expressions are one unit.
  const regex = (delim: string): boolean => {
    while (i < n) {
      const c = script[i]!
      if (c === '\\') {
        i += 2
        continue
      }
      if (c === '\n') return false
      if (c === '[' && delim !== '[') {
        i = bracketEnd(script, i)
        if (i < 0) return false
        continue
      }
      i++
      if (c === delim) return true
    }
    return false
  }
  // A replacement (or a `y` part) up to `delim`: only backslash escapes.
  const plain = (delim: string): boolean => {
    while (i < n) {
      const c = script[i]!
      if (c === '\\') {
        i += 2
        continue
      }
      i++
      if (c === delim) return true
    }
    return false
  }
  const address = (): boolean => {
    const c = script[i]
    if (c === '/') {
      i++
      if (!regex('/')) return false
    } else if (c === '\\') {
      const d = script[i + 1]
      if (d === undefined || d === '\n') return false
      i += 2
      if (!regex(d)) return false
    } else {
      while (i < n && /[0-9$~+]/.test(script[i]!)) i++
      return true
    }
    while (script[i] === 'I' || script[i] === 'M') i++
    return true
  }
  const fileArgument = (): string => {
    skipBlank()
    return restOfLine()
  }

  while (i < n) {
    while (i < n && (/[\s;]/.test(script[i]!) || script[i] === '}')) i++
    if (i >= n) break
    if (script[i] === '#') {
      restOfLine()
      continue
    }
    if (!address()) return { kind: 'unsure', why: 'has an unterminated address' }
    skipBlank()
    if (script[i] === ',') {
      i++
      skipBlank()
      if (!address()) return { kind: 'unsure', why: 'has an unterminated address' }
      skipBlank()
    }
    while (script[i] === '!') {
      i++
      skipBlank()
    }
    const cmd = script[i]
    if (cmd === undefined) return { kind: 'unsure', why: 'ends after an address' }
    i++
    switch (cmd) {
      case '{':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        continue
      case 'l':
      case 'L':
      case 'q':
      case 'Q':
        skipBlank()
        while (i < n && /[0-9]/.test(script[i]!)) i++
        continue
      case ':':
        skipBlank()
        if (word() === '') return { kind: 'unsure', why: 'has a label without a name' }
        continue
      case 'b':
      case 't':
      case 'T':
      case 'v':
        skipBlank()
        word()
        continue
      case 'a':
      case 'i':
      case 'c':
        // Text to the end of the line (a trailing backslash continues it: reading less is safe).
        restOfLine()
        continue
      case 'r':
      case 'R': {
        const file = fileArgument()
        if (file === '') return { kind: 'unsure', why: `command ${cmd} without a file name` }
        if (file !== '/dev/stdin') reads.push(file)
        continue
      }
      case 'w':
      case 'W': {
        const file = fileArgument()
        if (!SPECIAL_OUTPUT.has(file)) writes.push(file)
        continue
      }
      case 'e':
        return { kind: 'runs', why: 'command e runs a shell command' }
      case 's':
      case 'y': {
        const delim = script[i]
        if (delim === undefined || delim === '\n' || delim === '\\')
          return { kind: 'unsure', why: `has a malformed ${cmd} command` }
        i++
        const first = cmd === 's' ? regex(delim) : plain(delim)
        if (!first || !plain(delim)) return { kind: 'unsure', why: `has an unterminated ${cmd} command` }
        if (cmd === 'y') continue
        while (i < n && /[gpiImMe0-9w]/.test(script[i]!)) {
          const f = script[i]!
          i++
          if (f === 'e') return { kind: 'runs', why: 'flag e runs the pattern space as a command' }
          if (f === 'w') {
            const file = fileArgument()
            if (!SPECIAL_OUTPUT.has(file)) writes.push(file)
          }
        }
        continue
      }
      default:
        return { kind: 'unsure', why: `command '${cmd}' is not analysed` }
    }
  }
  if (writes.length > 0) return { kind: 'writes', why: `command w writes ${writes[0]}`, files: writes }
  return { kind: 'prints', reads }
}

/** Index after the `]` closing the bracket expression opening at `start`, or -1. */
function bracketEnd(s: string, start: number): number {
  let i = start + 1
  if (s[i] === '^') i++
  if (s[i] === ']') i++
  while (i < s.length) {
    const c = s[i]!
    if (c === '\n') return -1
    if (c === '[' && (s[i + 1] === ':' || s[i + 1] === '.' || s[i + 1] === '=')) {
      const close = s.indexOf(`${s[i + 1]}]`, i + 2)
      if (close < 0) return -1
      i = close + 2
      continue
    }
    if (c === ']') return i + 1
    i++
  }
  return -1
}
