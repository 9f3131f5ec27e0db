import { no, ok, unsure } from './judgement.js'
import { own } from './own.js'
import type { Judgement, Word } from './types.js'
import { describeWord } from './words.js'

/**
 * System inspection in its read-only forms (issue 12 §8): `ip addr`, `mount` without arguments,
 * package queries (`dpkg -l`, `apt list`, `pip list`), and version queries of toolchains
 * (`go version`, `cargo --version`). Every other form is not read-only.
 */

type SystemJudge = (args: readonly string[], program: string) => Judgement

const staticArgs = (args: readonly Word[]): string[] | Word => {
  const out: string[] = []
  for (const w of args) {
    if (w.kind !== 'static') return w
    out.push(w.value)
  }
  return out
}

// Version queries of native toolchains (a JVM writes /tmp/hsperfdata_*, found by the fuzzer; package
// managers such as yarn and pnpm may download themselves through corepack: not here).
const VERSION_ONLY: Readonly<Record<string, readonly string[]>> = {
  go: ['version'],
  rustc: ['--version', '-V'],
  cargo: ['--version', '-V', 'version'],
  gcc: ['--version', '-v', '-dumpversion'],
  'g++': ['--version', '-v', '-dumpversion'],
  cc: ['--version', '-v'],
  clang: ['--version'],
  cmake: ['--version'],
  tsc: ['--version', '-v'],
  pip: ['--version', '-V'],
  pip3: ['--version', '-V'],
}

export const SYSTEM: Readonly<Record<string, SystemJudge>> = {
  mount: (args) =>
    args.length === 0 || (args.length === 1 && (args[0] === '-l' || args[0] === '--show-labels'))
      ? ok('mount without a device only lists mounts')
      : no('mount mounts file systems'),
  'dpkg-query': () => ok('dpkg-query only reads the package database'),
  'apt-cache': (args) => {
    const sub = args.find((a) => !a.startsWith('-'))
    return sub !== undefined &&
      [
        'policy',
        'show',
        'showpkg',
        'showsrc',
        'search',
        'depends',
        'rdepends',
        'pkgnames',
        'stats',
        'madison',
        'dump',
      ].includes(sub)
      ? ok(`apt-cache ${sub} only reads the package cache`)
      : no(`apt-cache ${sub ?? ''} is not analysed as read-only`.replace('  ', ' '))
  },
  apt: (args) => {
    const sub = args.find((a) => !a.startsWith('-'))
    return sub !== undefined && ['list', 'show', 'search', 'policy', 'depends', 'rdepends'].includes(sub)
      ? ok(`apt ${sub} only reads the package cache`)
      : no(`apt ${sub ?? ''} changes packages or reaches the network`.replace('  ', ' '))
  },
  pip: judgePip,
  pip3: judgePip,
  ...Object.fromEntries(
    Object.entries(VERSION_ONLY)
      .filter(([p]) => p !== 'pip' && p !== 'pip3')
      .map(([p, forms]) => [
        p,
        (args: readonly string[]) =>
          args.length === 1 && forms.includes(args[0]!)
            ? ok(`${p} ${args[0]} only prints its version`)
            : no(`${p} builds or runs code`),
      ]),
  ),
}

function judgePip(args: readonly string[], program: string): Judgement {
  if (args.length === 1 && own(VERSION_ONLY, program)!.includes(args[0]!))
    return ok(`${program} ${args[0]} only prints its version`)
  const sub = args.find((a) => !a.startsWith('-'))
  if (sub === 'list' || sub === 'freeze' || sub === 'show' || sub === 'check') {
    if (
      args.some(
        (a) =>
          /^-(-outdated|-uptodate|[a-zA-Z]*[ou])$/.test(a) ||
          a.startsWith('--index') ||
          a.startsWith('--extra-index') ||
          a.startsWith('--find-links'),
      )
    )
      return no(`${program} ${sub} with that option reaches the package index`)
    return ok(`${program} ${sub} only reads installed packages`)
  }
  return no(`${program} ${sub ?? ''} installs packages or reaches the network`.replace('  ', ' '))
}

export function judgeSystem(program: string, args: readonly Word[]): Judgement {
  const list = staticArgs(args)
  if (!Array.isArray(list)) return unsure(`${program} with ${describeWord(list as Word)} is not analysed`)
  return own(SYSTEM, program)!(list, program)
}
