// Glob patterns compiled to regular expressions over `/`-separated relative paths:
// `*` any characters but `/`, `?` one character but `/`, `**` any number of directories,
// `[abc]` / `[!abc]` character classes, `{a,b}` alternatives. Dotfiles are matched like any file.

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch
}

export function globToRegExp(pattern: string): RegExp {
  let out = ''
  let depth = 0
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        const atStart = i === 0 || pattern[i - 1] === '/'
        const slashAfter = pattern[i + 2] === '/'
        if (atStart && slashAfter) {
          out += '(?:[^/]*/)*' // `**/`: zero or more directories
          i += 2
        } else if (atStart && i + 2 === pattern.length) {
          out += '.*' // trailing `**`: everything below
          i += 1
        } else {
          out += '[^/]*' // `a**b` is just `a*b`
          i += 1
        }
      } else {
        out += '[^/]*'
      }
    } else if (ch === '?') {
      out += '[^/]'
    } else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2)
      if (close === -1) {
        out += '\\['
      } else {
        let body = pattern.slice(i + 1, close)
        if (body.startsWith('!')) body = `^${body.slice(1)}`
        out += `[${body.replace(/\\/g, '\\\\')}]`
        i = close
      }
    } else if (ch === '{') {
      depth++
      out += '(?:'
    } else if (ch === '}' && depth > 0) {
      depth--
      out += ')'
    } else if (ch === ',' && depth > 0) {
      out += '|'
    } else if (ch === '\\' && i + 1 < pattern.length) {
      out += escapeRegex(pattern[++i]!)
    } else {
      out += escapeRegex(ch)
    }
  }
  while (depth-- > 0) out += ')'
  return new RegExp(`^${out}$`)
}

/**
 * ripgrep's `-g` semantics (gitignore style): a glob without a `/` matches the file name at any
 * depth; with one it matches the path relative to the search root (a leading `/` anchors it).
 */
export function fileGlobMatcher(glob: string): (relative: string, name: string) => boolean {
  const trimmed = glob.endsWith('/') ? glob.slice(0, -1) : glob
  if (!trimmed.includes('/')) {
    const re = globToRegExp(trimmed)
    return (_relative, name) => re.test(name)
  }
  const re = globToRegExp(trimmed.startsWith('/') ? trimmed.slice(1) : trimmed)
  return (relative) => re.test(relative)
}
