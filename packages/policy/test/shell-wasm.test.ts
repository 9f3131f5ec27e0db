import { createHash } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, test } from 'vitest'
import { BASH_WASM_SHA256, BASH_WASM_URL, verifiedGrammar } from '../src/shell/parser.js'

// The vendored bash grammar (wasm/README.md, issue 14 §4) and the install it allows.

const root = new URL('../../../', import.meta.url)

describe('the vendored tree-sitter-bash grammar', () => {
  test('the shipped file, its README and the parser name one SHA-256', () => {
    const digest = createHash('sha256').update(readFileSync(BASH_WASM_URL)).digest('hex')
    expect(digest).toBe(BASH_WASM_SHA256)
    expect(readFileSync(new URL('../wasm/README.md', import.meta.url), 'utf8')).toContain(
      `SHA-256: \`${digest}\``,
    )
    expect(readFileSync(new URL('../wasm/LICENSE.tree-sitter-bash', import.meta.url), 'utf8')).toContain(
      'The MIT License (MIT)',
    )
  })

  test('a different build, or none, is refused with the reason (no host path), before it is loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-wasm-'))
    try {
      const copy = join(dir, 'tree-sitter-bash.wasm')
      copyFileSync(BASH_WASM_URL, copy)
      await expect(verifiedGrammar(pathToFileURL(copy))).resolves.toHaveLength(readFileSync(copy).length)
      const bytes = readFileSync(copy)
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1)
      writeFileSync(copy, bytes)
      const digest = createHash('sha256').update(bytes).digest('hex')
      await expect(verifiedGrammar(pathToFileURL(copy))).rejects.toThrow(
        `the bash grammar file (wasm/tree-sitter-bash.wasm) has SHA-256 ${digest}, not the shipped ${BASH_WASM_SHA256}; reinstall @toolgate/policy`,
      )
      await expect(verifiedGrammar(pathToFileURL(join(dir, 'missing.wasm')))).rejects.toThrow(
        'the bash grammar file (wasm/tree-sitter-bash.wasm) cannot be read (ENOENT); reinstall @toolgate/policy',
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('the policy package ships the grammar (package.json "files")', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    expect(pkg.files).toContain('wasm')
    expect(Object.keys(pkg.dependencies)).not.toContain('tree-sitter-bash')
  })
})

describe('install without scripts', () => {
  // The bench's peers (root devDependencies, marked `dev` in the lockfile) are not what a user of
  // the packages installs; their install scripts do not matter to the packages or the tests.
  test('no package the toolgate packages install has an install script, so `npm ci --ignore-scripts` is the whole install', () => {
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean; dev?: boolean }>
    }
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript === true && p.dev !== true)
      .map(([name]) => name)
    expect(withScripts).toEqual([])
  })

  test('QuickJS comes as its core and one WebAssembly build, not the four of quickjs-emscripten', () => {
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>
    }
    const quickjs = Object.entries(lock.packages)
      .filter(([name, p]) => p.dev !== true && /(^|\/)(@jitl\/)?quickjs-/.test(name))
      .map(([name]) => name)
    expect(quickjs.sort()).toEqual([
      'node_modules/@jitl/quickjs-ffi-types',
      'node_modules/@jitl/quickjs-wasmfile-release-sync',
      'node_modules/quickjs-emscripten-core',
    ])
  })
})
