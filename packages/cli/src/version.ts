import { readFileSync } from 'node:fs'

/** The CLI's version from its package.json (next to dist/); `unknown` when it cannot be read. */
export function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string
    }
    return pkg.version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}
