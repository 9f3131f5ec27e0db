import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// @toolgate/core's main entry runs in browsers and edge runtimes: no Node-only imports outside
// src/node/ (the JSONL sink, exported from '@toolgate/core/node').
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory()
      ? name === 'node'
        ? []
        : sources(path)
      : path.endsWith('.ts')
        ? [path]
        : []
  })
}

describe('portability', () => {
  it('no module outside src/node imports a Node built-in or uses process/Buffer', () => {
    const root = new URL('../src', import.meta.url).pathname
    const offenders = sources(root).filter((file) => {
      const text = readFileSync(file, 'utf8')
      return /from ['"]node:|require\(|\bprocess\.|\bBuffer\./.test(text)
    })
    expect(offenders).toEqual([])
  })
})
