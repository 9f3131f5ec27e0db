import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPermissionEngine, initShellParser } from '@toolgate/policy'

await initShellParser()
const base = realpathSync(mkdtempSync(join(tmpdir(), 'tbl-')))
const root = join(base, 'work'),
  home = join(base, 'home')
mkdirSync(join(root, 'src'), { recursive: true })
mkdirSync(join(home, '.ssh'), { recursive: true })
writeFileSync(join(home, '.ssh/id_rsa'), 'k')
writeFileSync(join(root, '.env'), 'S=1')
writeFileSync(join(root, 'notes.txt'), 'x')
const rules = JSON.parse(process.env.RULES ?? '[]')
const { readFileSync } = await import('node:fs')
const cmds = JSON.parse(readFileSync(process.argv[2], 'utf8'))
for (const c of cmds) {
  console.log('==', JSON.stringify(c))
  const seen = new Map()
  for (const preset of ['read-only', 'workspace-write', 'danger-full-access'])
    for (const sandboxed of [false, true]) {
      const e = createPermissionEngine({
        root,
        home,
        userSettingsPath: null,
        projectSettingsPath: null,
        preset,
        sandboxed,
        rules,
      })
      const d = e.decide({ callId: 'x', name: 'bash', arguments: { command: c } })
      const text = d.kind === 'deny' ? d.reason : d.kind === 'ask' ? d.displayReason : d.why
      const key = JSON.stringify([d.kind, d.step, text, d.kind === 'ask' ? d.offerSessionGrant : undefined])
      const label = `${preset}${sandboxed ? '+sb' : ''}`
      seen.set(key, [...(seen.get(key) ?? []), label])
    }
  for (const [k, labels] of seen) console.log('  ', labels.join(','), k)
}
