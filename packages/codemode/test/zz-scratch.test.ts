import { test } from 'vitest'
import { run, plain } from './helpers.js'
test('x', async () => {
  for (const code of ['return [typeof Uint8Array, typeof ArrayBuffer, typeof DataView, typeof Atomics, typeof SharedArrayBuffer, typeof Map, typeof Proxy, typeof Date]', 'let a = [1]; for (;;) a = a.concat(a)', 'throw 5']) {
    const t = performance.now()
    const r = await run(code, { memoryBytes: 16 * 1024 * 1024 })
    console.log((performance.now() - t).toFixed(0), JSON.stringify(plain(r)).slice(0, 300))
  }
}, 120000)
