import { chmodSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hostPrograms, resolveProgram } from '@toolgate/policy'
import { afterEach, describe, expect, test } from 'vitest'
import { envWithHome, type Fixture, fixture, requireSandbox, run, usable } from './sandbox-helpers.js'

// Programs the agent runs on the host itself (bubblewrap, ripgrep, unshare) are resolved once, to
// an absolute path, system directories first, and kept read-only by the profile: a program of the
// same name a command put on PATH (danger-full-access writes ~/bin) never runs as the agent.

requireSandbox('the host program tests')

const fixtures: Fixture[] = []
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup()
})

describe('resolveProgram', () => {
  test('system directories come first; relative PATH entries are never searched', () => {
    const f = fixture('programs', { repo: false })
    fixtures.push(f)
    const bin = join(f.home, 'bin')
    mkdirSync(bin)
    for (const name of ['sh', 'toolgate-only-here']) {
      writeFileSync(join(bin, name), '#!/bin/sh\n')
      chmodSync(join(bin, name), 0o755)
    }
    expect(resolveProgram('sh', `${bin}:/usr/bin`)).toBe(realpathSync('/bin/sh'))
    expect(resolveProgram('toolgate-only-here', `home/bin:${bin}`)).toBe(join(bin, 'toolgate-only-here'))
    expect(resolveProgram('toolgate-only-here', 'home/bin')).toBe('toolgate-only-here')
    expect(hostPrograms()).toContain(join(bin, 'toolgate-only-here'))
  })

  test.skipIf(!usable)(
    'danger-full-access: a resolved program under the home directory is read-only inside',
    async () => {
      const f = fixture('programs-ro')
      fixtures.push(f)
      const bin = join(f.home, 'bin')
      mkdirSync(bin)
      writeFileSync(join(bin, 'toolgate-helper'), '#!/bin/sh\necho real\n')
      chmodSync(join(bin, 'toolgate-helper'), 0o755)
      expect(resolveProgram('toolgate-helper', bin)).toBe(join(bin, 'toolgate-helper'))
      const r = await run(
        'echo "echo planted" >> ~/bin/toolgate-helper 2>/dev/null; echo "append=$?"; mv ~/bin ~/bin2 2>/dev/null; echo "mv=$?"; echo other > ~/bin/other; echo "beside=$?"',
        { mode: 'danger-full-access', root: f.ws, home: f.home },
        { env: envWithHome(f.home) },
      )
      expect(r.stdout).toBe('append=1\nmv=1\nbeside=0\n')
      expect(readFileSync(join(bin, 'toolgate-helper'), 'utf8')).toBe('#!/bin/sh\necho real\n')
    },
  )
})
