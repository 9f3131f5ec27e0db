/**
 * A small scanner for sed scripts. It understands addresses and every GNU sed command well enough
 * to find the ones that write files (`w`, `W`, `s///w`) or run commands (`e`, `s///e`). Returns a
 * reason when the script is not read-only or not understood, `undefined` when it only prints.
 */
export function judgeSedScript(script: string): string | undefined {
  let i = 0
  const n = script.length
  const skipBlank = () => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++
  }
  const toEol = () => {
    while (i < n && script[i] !== '\n') i++
  }
  // Read a delimited part (regex or replacement), honouring backslash escapes.
  const delimited = (delim: string): boolean => {
    while (i < n) {
      const c = script[i]!
      if (c === '\\') {
        i += 2
        continue
      }
      if (c === '\n' && delim !== '\n') return false
      i++
      if (c === delim) return true
    }
    return false
  }
  const address = (): boolean => {
    const c = script[i]
    if (c === undefined) return true
    if (c === '/') {
      i++
      if (!delimited('/')) return false
      while (script[i] === 'I' || script[i] === 'M') i++
      return true
    }
    if (c === '\\') {
      const d = script[i + 1]
      if (d === undefined) return false
      i += 2
      if (!delimited(d)) return false
      while (script[i] === 'I' || script[i] === 'M') i++
      return true
    }
    while (i < n && /[0-9$~+]/.test(script[i]!)) i++
    return true
  }
  while (i < n) {
    while (i < n && /[\s;}{]/.test(script[i]!)) i++
    if (i >= n) break
    if (script[i] === '#') {
      toEol()
      continue
    }
    if (!address()) return 'has an unterminated address'
    skipBlank()
    if (script[i] === ',') {
      i++
      skipBlank()
      if (!address()) return 'has an unterminated address'
      skipBlank()
    }
    while (script[i] === '!') {
      i++
      skipBlank()
    }
    const cmd = script[i]
    if (cmd === undefined) return 'ends after an address'
    i++
    switch (cmd) {
      case '{':
      case '}':
        continue
      case 'p':
      case 'P':
      case 'd':
      case 'D':
      case 'n':
      case 'N':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'x':
      case '=':
      case 'l':
      case 'q':
      case 'Q':
      case 'z':
      case 'F':
        while (i < n && /[0-9 \t]/.test(script[i]!)) i++
        continue
      case 'a':
      case 'i':
      case 'c':
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'r':
      case 'R':
      case 'v':
        // Text, label or a file to read: up to the end of the line (labels also end at ';').
        if (cmd === 'b' || cmd === 't' || cmd === 'T') {
          while (i < n && script[i] !== '\n' && script[i] !== ';' && script[i] !== '}') i++
        } else toEol()
        continue
      case 'w':
      case 'W':
        return `command ${cmd} writes a file`
      case 'e':
        return 'command e runs a shell command'
      case 's':
      case 'y': {
        const delim = script[i]
        if (delim === undefined || delim === '\n' || delim === '\\') return `has a malformed ${cmd} command`
        i++
        if (!delimited(delim) || !delimited(delim)) return `has an unterminated ${cmd} command`
        if (cmd === 'y') continue
        while (i < n && /[gpiImM0-9ew]/.test(script[i]!)) {
          const f = script[i]!
          if (f === 'w') return 'flag w writes a file'
          if (f === 'e') return 'flag e runs the pattern space as a command'
          i++
        }
        continue
      }
      default:
        return `command '${cmd}' is not analysed`
    }
  }
  return undefined
}
