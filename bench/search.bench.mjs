// Search tools (issue 13 §3): glob and the grep JS backend over a tree of 2,000 files through the
// whole pipeline, each against a bare loop in the same run doing the same work the simplest way
// (recursive readdir + JavaScript RegExp; + readFile per file for grep), round-robin so load drift
// hits all alike. Then the catastrophic glob `*a*a*a*a*a*a*a*a*a*a*.md` over the tree (which holds
// one 200-character name), in a child process stopped after 10 s.

import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRuntime } from '@toolgate/core'
import { builtinTools } from '@toolgate/tools'
import { roundRobin } from './lib.mjs'

const LONG_NAME = `${'a'.repeat(200)}.txt`

function searchTree() {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-tree-'))
  const line = (i) => `export function handler${i}(value) { return transform(value, ${i}) } // text\n`
  for (let d = 0; d < 40; d++) {
    mkdirSync(join(root, `pkg${d}`, 'src'), { recursive: true })
    for (let f = 0; f < 50; f++) {
      const ext = f % 2 === 0 ? 'ts' : 'md'
      const body = Array.from({ length: 40 }, (_, i) => line(i)).join('')
      writeFileSync(
        join(root, `pkg${d}`, f < 25 ? 'src' : '', `file${f}.${ext}`),
        d === 7 && f === 3 ? `${body}needle\n` : body,
      )
    }
  }
  writeFileSync(join(root, LONG_NAME), '')
  return root
}

async function bareWalk(dir, rel, out) {
  const entries = await readdir(dir, { withFileTypes: true })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const e of entries) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`
    if (e.isDirectory()) await bareWalk(join(dir, e.name), r, out)
    else if (e.isFile()) out.push([join(dir, e.name), r])
  }
  return out
}

async function searchBench() {
  const root = searchTree()
  const runtime = createRuntime()
  runtime.use(builtinTools({ root, sandbox: false, grepBackend: 'js' }))
  let seq = 0
  const call = async (name, args) => {
    const r = await runtime.execute({ callId: `s${++seq}`, name, arguments: args })
    if (r.isError) throw new Error(JSON.stringify(r.error))
    return r
  }
  const globRe = /^(?:[^/]*\/)*[^/]*\.ts$/
  const GREP = 'needle|transform\\(value, 99\\)'
  const grepRe = new RegExp(GREP, 'u')
  const variants = {
    globTool: async (n) => {
      for (let i = 0; i < n; i++) await call('glob', { pattern: '**/*.ts' })
    },
    globBare: async (n) => {
      for (let i = 0; i < n; i++) (await bareWalk(root, '', [])).filter(([, rel]) => globRe.test(rel))
    },
    grepTool: async (n) => {
      for (let i = 0; i < n; i++) await call('grep', { pattern: GREP })
    },
    grepBare: async (n) => {
      for (let i = 0; i < n; i++) {
        const hits = []
        for (const [abs, rel] of await bareWalk(root, '', [])) {
          const bytes = await readFile(abs)
          if (bytes.includes(0)) continue
          if (
            bytes
              .toString('utf8')
              .split('\n')
              .some((l) => grepRe.test(l))
          )
            hits.push(rel)
        }
      }
    },
  }
  const ns = await roundRobin(variants, { iterations: 1, rounds: 9 })
  const ms = (k) => ns[k] / 1e6
  const files = 2001
  console.log(
    `glob tool **/*.ts over ${files} files: ${ms('globTool').toFixed(1)} ms/call median of 9 (${(ms('globTool') / ms('globBare')).toFixed(2)}x bare readdir walk + RegExp, ${ms('globBare').toFixed(1)} ms)`,
  )
  console.log(
    `grep tool, JS backend, ${GREP} over ${files} files: ${ms('grepTool').toFixed(1)} ms/call median of 9 (${(ms('grepTool') / ms('grepBare')).toFixed(2)}x bare walk + readFile + RegExp per line, ${ms('grepBare').toFixed(1)} ms)`,
  )
  // The catastrophic pattern, in a child process (a backtracking matcher would hold the thread).
  const script = `
    const { createRuntime } = await import('@toolgate/core')
    const { builtinTools } = await import('@toolgate/tools')
    const runtime = createRuntime()
    runtime.use(builtinTools({ root: ${JSON.stringify(root)}, sandbox: false }))
    const t = performance.now()
    const r = await runtime.execute({ callId: 'c', name: 'glob', arguments: { pattern: '*a*a*a*a*a*a*a*a*a*a*.md' } })
    console.log((performance.now() - t).toFixed(1), r.isError ? 'error' : 'ok')`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: import.meta.dirname ?? new URL('.', import.meta.url).pathname,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await new Promise((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  const [msText] = out.trim().split(' ')
  console.log(
    msText
      ? `glob tool *a*a*a*a*a*a*a*a*a*a*.md over ${files} files (one ${LONG_NAME.length}-character name): ${msText} ms for one call`
      : `glob tool *a*a*a*a*a*a*a*a*a*a*.md over ${files} files (one ${LONG_NAME.length}-character name): did not finish in 10 s (stopped)`,
  )
}

await searchBench()
