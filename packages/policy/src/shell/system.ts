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

// iproute2 (ip.c): objects match by prefix in this order, the first match wins (`ip a` = address,
// `ip r` = route); read-only objects with no command or with show/list/lst/ls (exact).
const IP_OBJECTS = [
  'address',
  'addrlabel',
  'maddress',
  'route',
  'rule',
  'neighbor',
  'neighbour',
  'ntable',
  'ntbl',
  'link',
  'l2tp',
  'fou',
  'ila',
  'macsec',
  'tunnel',
  'tunl',
  'tuntap',
  'tap',
  'token',
  'tcp_metrics',
  'tcpmetrics',
  'monitor',
  'xfrm',
  'mroute',
  'mrule',
  'netns',
  'netconf',
  'vrf',
  'sr',
  'nexthop',
  'mptcp',
  'ioam',
  'stats',
]
const IP_READABLE = new Set([
  'address',
  'addrlabel',
  'maddress',
  'route',
  'rule',
  'neighbor',
  'neighbour',
  'ntable',
  'ntbl',
  'link',
  'tunnel',
  'tunl',
  'netconf',
  'nexthop',
  'monitor',
])
const IP_VALUE_OPTIONS = new Set(['-n', '-netns', '-f', '-family', '-l', '-loops', '-rc', '-rcvbuf'])
function judgeIp(args: readonly string[]): Judgement {
  let i = 0
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const a = args[i]!
    if (a === '-b' || a === '-batch' || a === '-force') return unsure(`ip ${a} runs commands from a file`)
    if (IP_VALUE_OPTIONS.has(a)) i++
  }
  const word = args[i]
  if (word === undefined) return unsure('ip without an object is not analysed')
  const obj = IP_OBJECTS.find((o) => o.startsWith(word))
  if (obj === undefined || !IP_READABLE.has(obj)) return no(`ip ${word} is not analysed as read-only`)
  if (obj === 'monitor') return ok('ip monitor only prints')
  const command = args[i + 1]
  if (
    command === undefined ||
    ['show', 'list', 'lst', 'ls'].includes(command) ||
    (command === 'get' && obj === 'route')
  )
    return ok(`ip ${obj} ${command ?? 'show'} only prints`)
  return no(`ip ${obj} ${command} changes network configuration`)
}

const DPKG_QUERY = new Set([
  '-l',
  '--list',
  '-L',
  '--listfiles',
  '-s',
  '--status',
  '-S',
  '--search',
  '-p',
  '--print-avail',
  '-W',
  '--show',
  '--get-selections',
  '--print-architecture',
  '--print-foreign-architectures',
  '-c',
  '--contents',
  '-I',
  '--info',
  '--version',
  '--help',
])

const VERSION_ONLY: Readonly<Record<string, readonly string[]>> = {
  go: ['version'],
  rustc: ['--version', '-V'],
  cargo: ['--version', '-V', 'version'],
  rustup: ['--version', '-V'],
  java: ['-version', '--version'],
  javac: ['-version', '--version'],
  gcc: ['--version', '-v', '-dumpversion'],
  'g++': ['--version', '-v', '-dumpversion'],
  cc: ['--version', '-v'],
  clang: ['--version'],
  cmake: ['--version'],
  tsc: ['--version', '-v'],
  yarn: ['--version', '-v'],
  pnpm: ['--version', '-v'],
  pip: ['--version', '-V'],
  pip3: ['--version', '-V'],
  dotnet: ['--version', '--info'],
  swift: ['--version'],
  kotlin: ['-version'],
  gradle: ['--version'],
  mvn: ['--version', '-v'],
}

export const SYSTEM: Readonly<Record<string, SystemJudge>> = {
  ip: judgeIp,
  mount: (args) =>
    args.length === 0 || (args.length === 1 && (args[0] === '-l' || args[0] === '--show-labels'))
      ? ok('mount without a device only lists mounts')
      : no('mount mounts file systems'),
  'dpkg-query': () => ok('dpkg-query only reads the package database'),
  dpkg: (args) =>
    args.length > 0 && DPKG_QUERY.has(args[0]!)
      ? ok(`dpkg ${args[0]} only reads the package database`)
      : no('dpkg changes installed packages'),
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
