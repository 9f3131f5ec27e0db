import { no, ok, unsure } from './judgement.js'
import { own } from './own.js'
import type { Judgement, Word } from './types.js'
import { describeWord } from './words.js'

/**
 * System inspection in its read-only forms (issue 12 §8): `ip addr`, `mount` without arguments,
 * package queries (`dpkg -l`, `apt list`, `pip list`), and version queries of toolchains
 * (`gcc --version`, `cmake --version`). Every other form is not read-only.
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
// managers such as yarn and pnpm may download themselves through corepack: not here). Not here
// either: toolchains that download another toolchain named by a workspace file before answering
// (`go version` with a newer `toolchain` line in go.mod under GOTOOLCHAIN=auto; rustup's `cargo`
// and `rustc` proxies with a rust-toolchain.toml), which the model can write.
const VERSION_ONLY: Readonly<Record<string, readonly string[]>> = {
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

// pip's options that change nothing (general ones, then each reading subcommand's own), exactly
// as spelled: optparse accepts unique abbreviations (`pip show --lo x` is `--log x`, which writes
// x; found by the differential fuzzer), so anything not listed here is not read-only. Left out on
// purpose: --log and --cache-dir (write), --python (runs another interpreter), index and network
// options (-o/--outdated, -i, --proxy, ...), and freeze -r (prints the comments of any file).
const PIP_GENERAL = [
  '-v',
  '--verbose',
  '-q',
  '--quiet',
  '--isolated',
  '--require-virtualenv',
  '--no-input',
  '--disable-pip-version-check',
  '--no-color',
  '--no-python-version-warning',
  '--no-cache-dir',
]
const PIP_READING: Readonly<
  Record<string, { readonly flags: readonly string[]; readonly values: readonly string[] }>
> = {
  list: {
    flags: [
      '-l',
      '--local',
      '--user',
      '--pre',
      '--not-required',
      '--exclude-editable',
      '--include-editable',
      '-e',
      '--editable',
    ],
    values: ['--path', '--format', '--exclude'],
  },
  freeze: {
    flags: ['-l', '--local', '--user', '--all', '--exclude-editable'],
    values: ['--path', '--exclude'],
  },
  show: { flags: ['-f', '--files'], values: [] },
  check: { flags: [], values: [] },
}

function judgePip(args: readonly string[], program: string): Judgement {
  if (args.length === 1 && own(VERSION_ONLY, program)!.includes(args[0]!))
    return ok(`${program} ${args[0]} only prints its version`)
  let sub: string | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '--') break
    if (!a.startsWith('-') || a === '-') {
      if (sub !== undefined) continue
      sub = a
      if (own(PIP_READING, sub) === undefined)
        return no(`${program} ${sub} installs packages or reaches the network`)
      continue
    }
    const spec = sub === undefined ? undefined : own(PIP_READING, sub)
    const flags = [...PIP_GENERAL, ...(spec?.flags ?? [])]
    const name = a.startsWith('--') ? a.split('=', 1)[0]! : a
    if (spec?.values.includes(name)) {
      if (!a.includes('=')) i++
      continue
    }
    if (flags.includes(name)) continue
    // A cluster of one-letter flags (`-lv`).
    if (/^-[a-zA-Z]{2,}$/.test(a) && [...a.slice(1)].every((c) => flags.includes(`-${c}`))) continue
    return no(`${program}${sub === undefined ? '' : ` ${sub}`} with ${name} is not analysed as read-only`)
  }
  if (sub === undefined) return no(`${program} without a subcommand is not analysed`)
  return ok(`${program} ${sub} only reads installed packages`)
}

export function judgeSystem(program: string, args: readonly Word[]): Judgement {
  const list = staticArgs(args)
  if (!Array.isArray(list)) return unsure(`${program} with ${describeWord(list as Word)} is not analysed`)
  return own(SYSTEM, program)!(list, program)
}
