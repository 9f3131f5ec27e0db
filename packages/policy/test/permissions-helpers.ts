import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createPermissionEngine, type PermissionOptions } from '@toolgate/policy'

/** A real temp directory holding a workspace and a fake home; removed by `cleanup()`. */
export interface Sandbox {
  readonly base: string
  readonly root: string
  readonly home: string
  write(relativeToBase: string, content?: string): string
  cleanup(): void
}

/** `parent`: where to make it (a sandbox profile hides nothing under /tmp: it is private inside). */
export function makeSandbox(parent = tmpdir()): Sandbox {
  const base = realpathSync(mkdtempSync(join(parent, 'toolgate-perm-')))
  const root = join(base, 'work')
  const home = join(base, 'home')
  mkdirSync(root)
  mkdirSync(home)
  return {
    base,
    root,
    home,
    write(rel, content = '') {
      const file = join(base, rel)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, content)
      return file
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  }
}

/** An engine over the sandbox, with no user file unless given. */
export function engineFor(sb: Sandbox, options: Partial<PermissionOptions> = {}) {
  return createPermissionEngine({ root: sb.root, home: sb.home, userSettingsPath: null, ...options })
}

export const bash = (command: string, callId?: string) => ({
  ...(callId === undefined ? {} : { callId }),
  name: 'bash',
  arguments: { command },
})
export const call = (name: string, args: Record<string, string>, callId?: string) => ({
  ...(callId === undefined ? {} : { callId }),
  name,
  arguments: args,
})
