import { createRequire } from 'node:module'
import { Language, Parser } from 'web-tree-sitter'

/**
 * The bash parser: tree-sitter-bash compiled to WebAssembly, loaded through web-tree-sitter.
 * Loading WASM is asynchronous, so the package starts it on first import and `initShellParser()`
 * lets callers await it. Until it is ready `classifyCommand` fails closed ("parser not initialized").
 */

let parser: Parser | undefined
let loading: Promise<void> | undefined
let loadError: Error | undefined

async function load(): Promise<void> {
  const require = createRequire(import.meta.url)
  // Resolve through the package so it works from src/ (vitest), dist/ and an installed copy.
  const wasmPath = require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')
  await Parser.init()
  const language = await Language.load(wasmPath)
  const p = new Parser()
  p.setLanguage(language)
  parser = p
}

/** Load the bash grammar (idempotent; concurrent callers share one load). Rejects if it cannot load. */
export function initShellParser(): Promise<void> {
  if (loading === undefined) {
    loading = load().catch((error: unknown) => {
      loadError = error instanceof Error ? error : new Error(String(error))
      loading = undefined // a later call may retry
      throw loadError
    })
  }
  return loading
}

/** The parser when ready, otherwise `undefined` (callers fail closed). */
export function readyParser(): Parser | undefined {
  return parser
}

/** Why the parser is not ready, for the fail-closed reason. */
export function parserUnavailableReason(): string {
  return loadError === undefined
    ? 'parser not initialized (await initShellParser() first)'
    : `parser failed to load: ${loadError.message}`
}

// Kick off loading on first import so most callers never observe the not-ready state; swallow the
// rejection here (it is reported through parserUnavailableReason and initShellParser()).
initShellParser().catch(() => {})
