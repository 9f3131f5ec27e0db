import { readFileSync, writeFileSync } from 'node:fs'
import { createRuntime } from '@toolgate/core'
// Test-only: the README shows the SDK generated for the built-in tools (codemode itself does not
// depend on @toolgate/tools).
import { builtinTools } from '@toolgate/tools'
import { describe, expect, it } from 'vitest'
import { codeMode, renderCodeSdk } from '../src/index.js'
import { typecheck } from './typecheck.js'

const readmePath = new URL('../README.md', import.meta.url)
const BEGIN = '<!-- builtin-sdk:begin -->'
const END = '<!-- builtin-sdk:end -->'

function builtinSdk() {
  const runtime = createRuntime()
  runtime.use(builtinTools({ root: '/workspace', sandbox: false }))
  runtime.use(codeMode({ mode: 'code' }))
  return { runtime, sdk: renderCodeSdk(runtime), schemas: runtime.schemas() }
}

describe('the SDK of the built-in tools', () => {
  it('type-checks with the real TypeScript compiler, and a misuse does not', () => {
    const { sdk } = builtinSdk()
    const ok = [
      'const file = await tools.read({ path: "src/index.ts", offset: 1, limit: 20 })',
      'const hits = await tools.grep({ pattern: "TODO", output_mode: "content" })',
      'const run = await tools.bash({ command: "npm test" })',
      'await tools.edit({ path: "a.ts", old_string: "a", new_string: "b" })',
      'void file; void hits; void run',
    ].join('\n')
    expect(typecheck(sdk, ok)).toEqual([])
    expect(typecheck(sdk, 'await tools.read({ file: "x" })').length).toBeGreaterThan(0)
  })

  it('is what the README shows, and the model sees only run_code', () => {
    const { sdk, schemas } = builtinSdk()
    expect(schemas.map((s) => s.name)).toEqual(['run_code'])
    const block = `${BEGIN}\n\`\`\`ts\n${sdk}\`\`\`\n${END}`
    const readme = readFileSync(readmePath, 'utf8')
    if (process.env.UPDATE_README === '1') {
      const start = readme.indexOf(BEGIN)
      const end = readme.indexOf(END) + END.length
      writeFileSync(readmePath, readme.slice(0, start) + block + readme.slice(end))
      return
    }
    expect(readme).toContain(block)
  })
})

describe("mode 'both': the SDK refers to tools[] for descriptions (issue 17)", () => {
  function both() {
    const runtime = createRuntime()
    runtime.use(builtinTools({ root: '/workspace', sandbox: false }))
    runtime.use(codeMode({ mode: 'both' }))
    return {
      sdk: renderCodeSdk(runtime),
      full: renderCodeSdk(runtime, undefined, { descriptions: 'full' }),
      schemas: runtime.schemas(),
    }
  }

  it('sends no tool or parameter description twice, says where they are, and still type-checks', () => {
    const { sdk, schemas } = both()
    const tools = schemas.filter((s) => s.name !== 'run_code')
    expect(tools.map((s) => s.name).length).toBeGreaterThan(5)
    for (const s of tools) {
      expect(sdk).not.toContain(s.description.slice(0, 60))
      const props =
        (s.parameters as { properties?: Record<string, { description?: string }> }).properties ?? {}
      for (const p of Object.values(props))
        if (p.description) expect(sdk).not.toContain(p.description.slice(0, 60))
    }
    expect(sdk).toContain(
      [
        '// What each tool does and what its arguments mean: see its entry in your tool definitions',
        '// (same name, same parameters); this declaration gives the types only.',
      ].join('\n'),
    )
    expect(typecheck(sdk, 'const f = await tools.read({ path: "a.ts" })\nvoid f')).toEqual([])
  })

  it('is much smaller than the full declaration', () => {
    const { sdk, full } = both()
    expect(full.length - sdk.length).toBeGreaterThan(5_000)
  })
})
