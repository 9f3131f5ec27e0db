import { openSync } from 'node:fs'
import { assertNever } from '@toolgate/core'
import { hostFile } from './host-files.js'

/**
 * A seccomp filter for bubblewrap's `--seccomp FD` (issue 11 §4): no new Unix-domain sockets.
 * The network namespace cuts TCP/UDP and abstract sockets, but a socket FILE the sandbox can see
 * (a service listening under the home directory or inside the workspace) still answers
 * `connect()`. The filter makes `socket(AF_UNIX, ...)` fail with EACCES, while `socketpair()`
 * (anonymous, connected only to itself: libuv needs it for child processes) keeps working, and
 * refuses `io_uring_setup` (io_uring can create sockets without the `socket` system call) with
 * ENOSYS, so runtimes fall back to ordinary system calls. The kernel key management calls
 * (`add_key`, `request_key`, `keyctl`) fail with EPERM: keyrings can hold the user's credentials
 * (Kerberos tickets, encryption keys) outside any file the mounts can hide.
 *
 * Fail closed on the architecture: the program checks `seccomp_data.arch` first and kills the
 * process for any other ABI (the i386 `socketcall` entry on x86-64, x32 system call numbers), so
 * a 32-bit binary cannot step around the socket rule. Only x86-64 and arm64 have numbers here;
 * elsewhere `unixSocketFilter` returns undefined and the probe reports the sandbox as partly
 * enforced.
 */

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JGE_K = 0x35
const RET_K = 0x06
const RET_ALLOW = 0x7fff0000
const RET_KILL_PROCESS = 0x80000000
const retErrno = (errno: number) => 0x00050000 | errno
const EPERM = 1
const EACCES = 13
const ENOSYS = 38
const AF_UNIX = 1
const X32_SYSCALL_BIT = 0x40000000
// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFFSET_NR = 0
const OFFSET_ARCH = 4
const OFFSET_ARG0_LOW = 16 // little-endian: the low 32 bits of args[0] (socket's int domain)

interface Abi {
  readonly audit: number
  readonly socket: number
  readonly ioUringSetup: number
  /** add_key, request_key, keyctl: consecutive on both architectures. */
  readonly addKey: number
  /** x86-64 shares its audit arch with x32, told apart by bit 30 of the number. */
  readonly x32: boolean
}

const ABIS: Readonly<Record<string, Abi>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUringSetup: 425, addKey: 248, x32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUringSetup: 425, addKey: 217, x32: false },
}

type Insn =
  | { readonly op: 'ld'; readonly offset: number }
  | { readonly op: 'jeq' | 'jge'; readonly k: number; readonly yes: string; readonly no: string }
  | { readonly op: 'ret'; readonly value: number }
  | { readonly op: 'label'; readonly name: string }

/** The filter program (struct sock_filter[], native byte order) for `arch`, or undefined. */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const abi = ABIS[arch]
  if (abi === undefined) return undefined
  const program: Insn[] = [
    { op: 'ld', offset: OFFSET_ARCH },
    { op: 'jeq', k: abi.audit, yes: 'native', no: 'kill' },
    { op: 'label', name: 'native' },
    { op: 'ld', offset: OFFSET_NR },
    ...(abi.x32 ? [{ op: 'jge', k: X32_SYSCALL_BIT, yes: 'kill', no: 'abi-ok' } as const] : []),
    { op: 'label', name: 'abi-ok' },
    { op: 'jeq', k: abi.ioUringSetup, yes: 'enosys', no: 'not-io-uring' },
    { op: 'label', name: 'not-io-uring' },
    { op: 'jeq', k: abi.addKey, yes: 'eperm', no: 'not-add-key' },
    { op: 'label', name: 'not-add-key' },
    { op: 'jeq', k: abi.addKey + 1, yes: 'eperm', no: 'not-request-key' },
    { op: 'label', name: 'not-request-key' },
    { op: 'jeq', k: abi.addKey + 2, yes: 'eperm', no: 'not-keyctl' },
    { op: 'label', name: 'not-keyctl' },
    { op: 'jeq', k: abi.socket, yes: 'socket', no: 'allow' },
    { op: 'label', name: 'socket' },
    { op: 'ld', offset: OFFSET_ARG0_LOW },
    { op: 'jeq', k: AF_UNIX, yes: 'eacces', no: 'allow' },
    { op: 'label', name: 'allow' },
    { op: 'ret', value: RET_ALLOW },
    { op: 'label', name: 'eacces' },
    { op: 'ret', value: retErrno(EACCES) },
    { op: 'label', name: 'enosys' },
    { op: 'ret', value: retErrno(ENOSYS) },
    { op: 'label', name: 'eperm' },
    { op: 'ret', value: retErrno(EPERM) },
    { op: 'label', name: 'kill' },
    { op: 'ret', value: RET_KILL_PROCESS },
  ]
  return assemble(program)
}

/** Resolve labels to forward jump offsets (classic BPF jumps only forward, by 0-255). */
function assemble(program: readonly Insn[]): Buffer {
  const code = program.filter((i): i is Exclude<Insn, { op: 'label' }> => i.op !== 'label')
  const at = new Map<string, number>()
  let index = 0
  for (const insn of program) {
    if (insn.op === 'label') at.set(insn.name, index)
    else index++
  }
  const out = Buffer.alloc(code.length * 8)
  code.forEach((insn, i) => {
    const o = i * 8
    const jump = (label: string) => {
      const target = at.get(label)
      if (target === undefined || target <= i || target - i - 1 > 255) {
        throw new Error(`seccomp: bad jump to ${label} from ${i}`)
      }
      return target - i - 1
    }
    switch (insn.op) {
      case 'ld':
        out.writeUInt16LE(LD_W_ABS, o)
        out.writeUInt32LE(insn.offset, o + 4)
        break
      case 'jeq':
      case 'jge':
        out.writeUInt16LE(insn.op === 'jeq' ? JEQ_K : JGE_K, o)
        out.writeUInt8(jump(insn.yes), o + 2)
        out.writeUInt8(jump(insn.no), o + 3)
        out.writeUInt32LE(insn.k >>> 0, o + 4)
        break
      case 'ret':
        out.writeUInt16LE(RET_K, o)
        out.writeUInt32LE(insn.value >>> 0, o + 4)
        break
      default:
        assertNever(insn, 'instruction')
    }
  })
  return out
}

/**
 * A descriptor for the filter, to pass to bwrap as `--seccomp FD` (bwrap reads the program from
 * it; each sandbox needs its own descriptor, since reading moves the offset). Undefined when this
 * architecture has no filter.
 */
export function openFilter(): number | undefined {
  const program = unixSocketFilter()
  if (program === undefined) return undefined
  return openSync(hostFile('unix-sockets.bpf', program), 'r')
}
