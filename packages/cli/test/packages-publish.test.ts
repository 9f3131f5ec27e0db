// Every package as npm would publish it: `npm pack` each workspace, check what the tarballs hold,
// then install them into a scratch project and import every entry point. The install is `npm ci
// --offline`: its lockfile is the repository's (the same third-party versions, taken from npm's
// cache), with each workspace link replaced by the packed tarball, so nothing is fetched and a
// tarball that lacks a file its entry points need fails here.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { build, REPO } from './binary-helpers.js'

const WORKSPACES = readdirSync(join(REPO, 'packages')).sort()

interface Packed {
  readonly name: string
  readonly version: string
  readonly filename: string
  readonly integrity: string
  readonly files: readonly { readonly path: string }[]
}

interface LockEntry {
  readonly name?: string
  readonly version?: string
  readonly link?: boolean
  readonly dev?: boolean
  readonly [key: string]: unknown
}

// npm run from `npm test` passes its own settings down as npm_config_* variables: not to the child npm
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')),
)

function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env: ENV, encoding: 'utf8', timeout: 240_000 })
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`)
  return r
}

let dir = ''
let packed: Packed[] = []
/** workspace folder name -> the tarball's extracted `package/` folder */
const extracted = new Map<string, string>()

beforeAll(async () => {
  // Every package built (the CLI references all of them); usually already done by `npm test`
  const built = await build()
  if (built.code !== 0)
    throw new Error(`tsc -b packages/cli failed (${built.code}):\n${built.lines.join('\n')}`)
  dir = mkdtempSync(join(tmpdir(), 'toolgate-pack-'))
  packed = JSON.parse(run('npm', ['pack', '--workspaces', '--json', '--pack-destination', dir], REPO).stdout)
  for (const workspace of WORKSPACES) {
    const manifest = JSON.parse(readFileSync(join(REPO, 'packages', workspace, 'package.json'), 'utf8'))
    const pack = packed.find((p) => p.name === manifest.name)
    if (!pack) throw new Error(`packages/${workspace} (${manifest.name}) was not packed`)
    const into = join(dir, 'extracted', workspace)
    mkdirSync(into, { recursive: true })
    run('tar', ['-xzf', join(dir, pack.filename), '-C', into], REPO)
    extracted.set(workspace, join(into, 'package'))
  }
}, 300_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
}, 120_000)

/** Every file under `root`, relative to it. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(root, f)).isFile())
    .sort()
}

describe('the tarballs', () => {
  test('every workspace is packed', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(
      WORKSPACES.map(
        (w) => JSON.parse(readFileSync(join(REPO, 'packages', w, 'package.json'), 'utf8')).name,
      ).sort(),
    )
  })

  test.each(WORKSPACES)('%s: its build, its sources, README and LICENSE, nothing else', (workspace) => {
    const files = filesUnder(extracted.get(workspace)!)
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/index.js',
      'dist/index.d.ts',
      'src/index.ts',
    ]) {
      expect(files).toContain(f)
    }
    expect(
      // policy also ships the bash grammar it loads at run time (wasm/, with its licence and hash)
      files.filter(
        (f) =>
          !/^(dist|src)\//.test(f) &&
          !(workspace === 'policy' && /^wasm\//.test(f)) &&
          !['package.json', 'README.md', 'LICENSE'].includes(f),
      ),
    ).toEqual([])
    expect(files.filter((f) => f.includes('tsbuildinfo'))).toEqual([])
    expect(readFileSync(join(extracted.get(workspace)!, 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(REPO, 'LICENSE'), 'utf8'),
    )
  })

  test.each(WORKSPACES)('%s: engines, repository and sideEffects', (workspace) => {
    const manifest = JSON.parse(readFileSync(join(extracted.get(workspace)!, 'package.json'), 'utf8'))
    // The CLI styles its output with util.styleText, which Node 20 has from 20.12 on.
    expect(manifest.engines).toEqual({ node: workspace === 'cli' ? '>=20.12' : '>=20' })
    expect(manifest.license).toBe('MIT')
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/toolgate/toolgate.git',
      directory: `packages/${workspace}`,
    })
    // false, or the list of modules that do something when loaded (each one shipped)
    if (manifest.sideEffects !== false) {
      expect(Array.isArray(manifest.sideEffects)).toBe(true)
      for (const f of manifest.sideEffects as string[])
        expect(existsSync(join(extracted.get(workspace)!, f))).toBe(true)
    }
  })

  test.each(WORKSPACES)('%s: every source map points at sources in the tarball', (workspace) => {
    const root = extracted.get(workspace)!
    const maps = filesUnder(root).filter((f) => f.endsWith('.map'))
    expect(maps.length).toBeGreaterThan(0)
    const missing: string[] = []
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[] }
      for (const source of sources) {
        const at = resolve(root, dirname(map), source)
        if (relative(root, at).startsWith('..') || !existsSync(at)) missing.push(`${map} -> ${source}`)
      }
    }
    // a map whose source is gone is a stale build output (tsc -b never deletes one): `rm -rf packages/*/dist && npm run build`
    expect(missing).toEqual([])
  })
})

describe('a scratch project that installs the tarballs', () => {
  let scratch = ''
  beforeAll(() => {
    scratch = join(dir, 'scratch')
    mkdirSync(scratch)
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>
    }
    const packages: Record<string, unknown> = {}
    // third-party packages at the versions the repository locks (not its dev-only ones); the
    // repository's lockfile omits registry URLs, npm's cache is keyed by them
    for (const [lockKey, entry] of Object.entries(lock.packages)) {
      if (entry.link || entry.dev) continue
      // a dependency a workspace holds at its own version (`packages/tools/node_modules/diff`)
      // sits under that package in the scratch project (`node_modules/@toolgate/tools/node_modules/diff`)
      const nested = /^(packages\/[^/]+)\/(node_modules\/.+)$/.exec(lockKey)
      const owner = nested ? lock.packages[nested[1]!]?.name : undefined
      const key = nested && owner ? `node_modules/${owner}/${nested[2]}` : lockKey
      if (!key.startsWith('node_modules/')) continue
      const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)
      const base = name.split('/').pop()
      packages[key] = {
        resolved: `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`,
        ...entry,
      }
    }
    const dependencies: Record<string, string> = {}
    for (const p of packed) {
      const workspace = Object.values(lock.packages).find((e) => e.name === p.name && !e.link)
      if (!workspace) throw new Error(`${p.name} is not in package-lock.json`)
      const { devDependencies: _dev, ...entry } = workspace
      dependencies[p.name] = `file:../${p.filename}`
      packages[`node_modules/${p.name}`] = {
        ...entry,
        resolved: `file:../${p.filename}`,
        integrity: p.integrity,
      }
    }
    packages[''] = { name: 'scratch', dependencies }
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch', private: true, type: 'module', dependencies }),
    )
    writeFileSync(
      join(scratch, 'package-lock.json'),
      JSON.stringify({ name: 'scratch', lockfileVersion: 3, requires: true, packages }),
    )
    // no install scripts: tree-sitter-bash's builds a native addon that policy does not use (it loads the .wasm)
    run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], scratch)
  }, 300_000)

  test('imports every entry point of every package and uses the parts that load files at run time', {
    timeout: 120_000,
  }, () => {
    const specifiers = WORKSPACES.flatMap((workspace) => {
      const manifest = JSON.parse(readFileSync(join(REPO, 'packages', workspace, 'package.json'), 'utf8'))
      return Object.keys(manifest.exports).map((sub) =>
        sub === '.' ? manifest.name : `${manifest.name}${sub.slice(1)}`,
      )
    })
    expect(specifiers).toContain('@toolgate/core/node')
    const script = `
      const out = {}
      for (const s of ${JSON.stringify(specifiers)}) out[s] = Object.keys(await import(s)).length > 0
      const policy = await import('@toolgate/policy')
      await policy.initShellParser()
      out.classified = policy.classifyCommand('ls -la').readOnly
      const { runSandboxed } = await import('@toolgate/codemode')
      const ran = await runSandboxed({ code: 'return 6 * 7', tools: [], dispatch: () => {} })
      out.sandboxed = ran.ok ? ran.result : ran.message
      console.log(JSON.stringify(out))
      process.exit(0)
    `
    const r = run(process.execPath, ['--input-type=module', '-e', script], scratch)
    expect(JSON.parse(r.stdout)).toEqual({
      ...Object.fromEntries(specifiers.map((s) => [s, true])),
      classified: true,
      sandboxed: 42,
    })
    // installed from the tarballs (copies), not links to the repository's workspaces
    for (const p of packed) expect(lstatSync(join(scratch, 'node_modules', p.name)).isDirectory()).toBe(true)
  })

  test('the installed binary runs', { timeout: 60_000 }, () => {
    expect(run(join(scratch, 'node_modules/.bin/toolgate'), ['--version'], scratch).stdout).toBe(
      'toolgate 0.1.0\n',
    )
  })
})
