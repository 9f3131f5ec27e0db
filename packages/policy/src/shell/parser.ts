import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { Language, Parser } from 'web-tree-sitter'

/**
 * The bash parser: tree-sitter-bash compiled to WebAssembly, loaded through web-tree-sitter.
 * Loading WASM is asynchronous, so the package starts it on first import and `initShellParser()`
 * lets callers await it. Until it is ready `classifyCommand` fails closed ("parser not initialized").
 *
 * The grammar is the one file this package ships from tree-sitter-bash (issue 14 §4): the npm
 * package brings a native addon, prebuilt binaries for six platforms and an install script to
 * deliver it. `wasm/README.md` says where it came from and how to refresh it; its SHA-256 is checked
 * here before it is loaded, so a different build fails closed with a reason instead of parsing
 * bash another way.
 */

/** `tree-sitter-bash.wasm` from the npm package tree-sitter-bash 0.25.1 (wasm/README.md). */
export const BASH_WASM_SHA256 = '8292919c88a0f7d3fb31d0cd0253ca5a9531bc1ede82b0537f2c63dd8abe6a7a'

/** From src/shell/ (vitest) and dist/shell/ (built, installed) alike: two levels below the package. */
export const BASH_WASM_URL = new URL('../../wasm/tree-sitter-bash.wasm', import.meta.url)

let parser: Parser | undefined
let loading: Promise<void> | undefined
let loadError: Error | undefined

/** The grammar's bytes, refused (rejects) unless they are the shipped build. */
export async function verifiedGrammar(url: URL = BASH_WASM_URL): Promise<Uint8Array> {
  // No host path in either reason: it can reach the model through a fail-closed classification.
  const bytes = await readFile(url).catch((error: unknown) => {
    const code = (error as { code?: unknown }).code
    throw new Error(
      `the bash grammar file (wasm/tree-sitter-bash.wasm) cannot be read (${typeof code === 'string' ? code : 'unknown error'}); reinstall @toolgate/policy`,
    )
  })
  const digest = createHash('sha256').update(bytes).digest('hex')
  if (digest !== BASH_WASM_SHA256) {
    throw new Error(
      `the bash grammar file (wasm/tree-sitter-bash.wasm) has SHA-256 ${digest}, not the shipped ${BASH_WASM_SHA256}; reinstall @toolgate/policy`,
    )
  }
  return bytes
}

async function load(): Promise<void> {
  const bytes = await verifiedGrammar()
  await Parser.init()
  const language = await Language.load(bytes)
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
