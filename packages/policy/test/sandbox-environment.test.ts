import {
  bashEnvironment,
  ENV_ALLOWLIST,
  environmentProblems,
  gitConfigEnvironment,
  isSecretName,
  registerSecretEnv,
  unixSocketFilter,
} from '@toolgate/policy'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

// The environment bash gets (issue 11 §3, §4, §8) and the seccomp program's shape. The real runs
// (printenv inside bubblewrap, a unix socket that does not answer) are in sandbox-escape.test.ts.

describe('bashEnvironment', () => {
  test('the allowlist passes, everything else does not', () => {
    expect(
      bashEnvironment(
        {
          PATH: '/bin',
          HOME: '/h',
          LC_ALL: 'C',
          LANG: 'C.UTF-8',
          OPENAI_API_KEY: 'sk',
          EDITOR: 'vim',
          SSH_AUTH_SOCK: '/tmp/a',
          GIT_DIR: '/elsewhere',
          LD_PRELOAD: '/x.so',
          NODE_OPTIONS: '--require x',
        },
        undefined,
      ),
    ).toEqual({ HOME: '/h', LANG: 'C.UTF-8', LC_ALL: 'C', PATH: '/bin' })
  })

  test('no default name looks like a credential', () => {
    for (const name of ENV_ALLOWLIST) expect(isSecretName(name.replace('*', 'X'))).toBe(false)
  })

  test('configured names pass; credential-looking ones are refused even when configured', () => {
    const policy = { allow: ['MYAPP_*', 'OTHER'] }
    expect(environmentProblems(policy)).toEqual([])
    expect(bashEnvironment({ MYAPP_MODE: 'dev', MYAPP_TOKEN: 't', OTHER: 'o', NOPE: 'n' }, policy)).toEqual({
      MYAPP_MODE: 'dev',
      OTHER: 'o',
    })
    expect(environmentProblems({ allow: ['GITHUB_TOKEN', 'DB_PASSWORD', 'x y', 'XDG_RUNTIME_DIR'] })).toEqual(
      [
        'GITHUB_TOKEN looks like a credential or a way to a host service; bash never gets it (run the command that needs it yourself)',
        'DB_PASSWORD looks like a credential or a way to a host service; bash never gets it (run the command that needs it yourself)',
        '"x y" is not a variable name (letters, digits, _; optionally ending in *)',
        'XDG_RUNTIME_DIR looks like a credential or a way to a host service; bash never gets it (run the command that needs it yourself)',
      ],
    )
  })

  test('a registered key never passes, under its name or copied into another', () => {
    const env = {
      TOOLGATE_TEST_ENV_REGISTERED: 'registered-secret-value',
      LANG: 'x-registered-secret-value-y',
    }
    registerSecretEnv('TOOLGATE_TEST_ENV_REGISTERED', env)
    expect(bashEnvironment(env, { allow: ['TOOLGATE_TEST_*'] })).toEqual({})
  })

  test('property: a name holding a credential word never passes, whatever the allowlist', () => {
    const word = fc.constantFrom('KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIALS', 'PASSPHRASE')
    const part = fc.stringMatching(/^[A-Z0-9]{0,6}$/)
    fc.assert(
      fc.property(part, word, part, (pre, w, post) => {
        const name = `${pre}${pre === '' ? '' : '_'}${w}${post === '' ? '' : '_'}${post}`
        expect(bashEnvironment({ [name]: 'v' }, { allow: [name, `${pre}*`] })).toEqual({})
      }),
    )
  })
})

describe('git configuration bash gets', () => {
  test('safe defaults first, the user additions after (git applies them in order)', () => {
    expect(gitConfigEnvironment({ 'diff.tool': 'meld' })).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'safe.bareRepository',
      GIT_CONFIG_VALUE_0: 'explicit',
      GIT_CONFIG_KEY_1: 'core.fsmonitor',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_CONFIG_KEY_2: 'diff.tool',
      GIT_CONFIG_VALUE_2: 'meld',
    })
  })
})

describe('the unix-socket seccomp program', () => {
  /** Decode struct sock_filter[]: [code, jt, jf, k]. */
  const decode = (b: Buffer) =>
    Array.from({ length: b.length / 8 }, (_, i) => [
      b.readUInt16LE(i * 8),
      b[i * 8 + 2],
      b[i * 8 + 3],
      b.readUInt32LE(i * 8 + 4),
    ])

  test('x86-64: arch check first (kill otherwise), x32 killed, io_uring_setup ENOSYS, keyrings EPERM, socket(AF_UNIX) EACCES', () => {
    expect(decode(unixSocketFilter('x64')!)).toEqual([
      [0x20, 0, 0, 4], // ld arch
      [0x15, 0, 13, 0xc000003e], // x86-64, else kill
      [0x20, 0, 0, 0], // ld nr
      [0x35, 11, 0, 0x40000000], // x32 numbers: kill
      [0x15, 8, 0, 425], // io_uring_setup: ENOSYS
      [0x15, 8, 0, 248], // add_key: EPERM
      [0x15, 7, 0, 249], // request_key: EPERM
      [0x15, 6, 0, 250], // keyctl: EPERM
      [0x15, 0, 2, 41], // socket, else allow
      [0x20, 0, 0, 16], // ld args[0]
      [0x15, 1, 0, 1], // AF_UNIX: EACCES, else allow
      [0x06, 0, 0, 0x7fff0000], // allow
      [0x06, 0, 0, 0x0005000d], // errno EACCES
      [0x06, 0, 0, 0x00050026], // errno ENOSYS
      [0x06, 0, 0, 0x00050001], // errno EPERM
      [0x06, 0, 0, 0x80000000], // kill process
    ])
  })

  test('arm64 has no x32 check; other architectures have no program (the probe reports partial)', () => {
    const arm = decode(unixSocketFilter('arm64')!)
    expect(arm[1]).toEqual([0x15, 0, 12, 0xc00000b7])
    expect(arm.filter(([code, , , k]) => code === 0x15 && (k ?? 0) >= 217 && (k ?? 0) <= 219)).toHaveLength(3)
    expect(arm.some(([code, , , k]) => code === 0x35 && k === 0x40000000)).toBe(false)
    expect(arm.find(([code, , , k]) => code === 0x15 && k === 198)).toBeDefined()
    expect(unixSocketFilter('ia32')).toBeUndefined()
    expect(unixSocketFilter('riscv64')).toBeUndefined()
  })
})
