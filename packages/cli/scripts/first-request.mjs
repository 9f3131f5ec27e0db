// Writes src/session/first-request.generated.ts: the tool declarations and the Code Mode prompt
// of `run`'s first request, captured from a real session (src/session/first-request-live.ts), so
// the early first request needs neither zod, the tools nor Code Mode (README "Start-up").
// `npm run build:first-request` (builds the CLI first); without --write it prints whether the
// checked-in file is current (test/first-request.test.ts checks the same).
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const { liveFirstRequestParts } = await import('../dist/session/first-request-live.js')
const target = fileURLToPath(new URL('../src/session/first-request.generated.ts', import.meta.url))
const { renderFirstRequestModule } = await import('../dist/session/first-request-render.js')
const text = renderFirstRequestModule({
  code: await liveFirstRequestParts(true),
  noCode: await liveFirstRequestParts(false),
})
if (process.argv.includes('--write')) {
  writeFileSync(target, text)
  console.log(`wrote ${target}`)
} else if (readFileSync(target, 'utf8') !== text) {
  console.log(`${target} is out of date: run npm run build:first-request`)
  process.exitCode = 1
} else console.log(`${target} is current`)
