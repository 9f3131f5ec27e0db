import type { Word } from './types.js'

/** Environment prefixes that cannot load code or change what runs (values without `/`). */
const SAFE_ENV = new Set([
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_COLLATE',
  'LC_CTYPE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'TZ',
  'NO_COLOR',
  'COLUMNS',
  'LINES',
])

export function isSafeEnvAssignment(name: string, value: Word): boolean {
  return SAFE_ENV.has(name) && value.kind === 'static' && /^[A-Za-z0-9_.:@+-]*$/.test(value.value)
}
