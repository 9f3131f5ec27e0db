/**
 * The syscall trace of a command (strace -f -ff inside the sandbox) and what it shows: programs
 * executed, network traffic, write attempts that the snapshot cannot see (they failed, or they went
 * outside the fixture), and privileged state changes (host name, clock, mounts, kernel log, another
 * process's priority, affinity or limits).
 */

/** Syscalls that create, change or remove a file (opens are judged by their flags). */
const FILE_CHANGES = [
  'creat',
  'mkdir',
  'mkdirat',
  'mknod',
  'mknodat',
  'rmdir',
  'unlink',
  'unlinkat',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'chmod',
  'fchmodat',
  'chown',
  'lchown',
  'fchownat',
  'truncate',
  'utime',
  'utimes',
  'utimensat',
  'futimesat',
  'setxattr',
  'lsetxattr',
  'removexattr',
  'lremovexattr',
] as const

/** Syscalls that change the system: host name, clock, mounts, modules, namespaces. */
const SYSTEM_CHANGES = [
  'sethostname',
  'setdomainname',
  'settimeofday',
  'clock_settime',
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'swapon',
  'swapoff',
  'reboot',
  'init_module',
  'finit_module',
  'delete_module',
  'kexec_load',
  'acct',
  'setns',
  'unshare',
] as const

/** Syscalls that change a process: judged by their target (another process, not the caller). */
const PROCESS_CHANGES = [
  'setpriority',
  'ioprio_set',
  'sched_setaffinity',
  'sched_setscheduler',
  'sched_setparam',
  'sched_setattr',
  'prlimit64',
] as const

/** Syscalls traced. Reads are traced too (openat), since strace filters by syscall, not by flags. */
export const TRACED_SYSCALLS = [
  'execve',
  'execveat',
  'socket',
  'connect',
  'sendto',
  'sendmsg',
  'sendmmsg',
  'listen',
  'open',
  'openat',
  'openat2',
  'syslog',
  ...FILE_CHANGES,
  ...SYSTEM_CHANGES,
  ...PROCESS_CHANGES,
] as const

const ALWAYS_WRITES: ReadonlySet<string> = new Set(FILE_CHANGES)
const PRIVILEGED: ReadonlySet<string> = new Set(SYSTEM_CHANGES)

export interface Exec {
  readonly pid: number
  readonly path: string
  readonly argv: string
  readonly ok: boolean
}

export interface TraceEvent {
  readonly pid: number
  readonly syscall: string
  /** The path the syscall names (resolved against a decoded directory fd when strace -y shows it). */
  readonly path?: string
  readonly ok: boolean
  readonly line: string
}

export interface Trace {
  readonly execs: readonly Exec[]
  /**
   * Connections and datagrams to an internet address (loopback included), listening internet
   * sockets, raw and packet sockets, and sockets of any other non-local family.
   */
  readonly network: readonly TraceEvent[]
  /** Syscalls that create, change or remove a file, or open one for writing. */
  readonly writes: readonly TraceEvent[]
  readonly privileged: readonly TraceEvent[]
}

const LINE = /^(\w+)\((.*)\)\s+=\s+(-?\d+|\?|0x[0-9a-f]+)/s

/** Split strace's argument list at top-level commas (strings and brackets kept whole). */
function splitArgs(s: string): string[] {
  const out: string[] = []
  let depth = 0
  let cur = ''
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!
    if (c === '"') {
      let j = i + 1
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1
      cur += s.slice(i, j + 1)
      i = j
      // strace marks a truncated string with "..." after the closing quote.
      continue
    }
    if (c === '[' || c === '{' || c === '(') depth++
    else if (c === ']' || c === '}' || c === ')') depth--
    if (c === ',' && depth === 0) {
      out.push(cur.trim())
      cur = ''
      continue
    }
    cur += c
  }
  if (cur.trim() !== '') out.push(cur.trim())
  return out
}

/** Decode a strace string literal ("...", with C escapes; strace -y may append <path>). */
function unquote(arg: string | undefined): string | undefined {
  if (arg === undefined) return undefined
  const m = /^"((?:[^"\\]|\\.)*)"/s.exec(arg)
  if (m === null) return undefined
  return m[1]!.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/gs, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(Number.parseInt(e.slice(1), 16))
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(Number.parseInt(e, 8))
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f' } as Record<string, string>)[e] ?? e
  })
}

/**
 * `3</home/agent/project>` (strace -yy) -> the directory; `4</dev/null<char 1:3>>` -> /dev/null;
 * AT_FDCWD -> undefined (relative).
 */
function dirOf(arg: string | undefined): string | undefined {
  if (arg === undefined) return undefined
  const m = /^-?\d+<(.*)>$/s.exec(arg)
  if (m === null) return undefined
  return /^(.*)<(?:char|block) \d+:\d+>$/s.exec(m[1]!)?.[1] ?? m[1]
}

function joinPath(dir: string | undefined, path: string): string {
  if (path.startsWith('/') || dir === undefined) return path
  return `${dir.replace(/\/$/, '')}/${path}`
}

const WRITE_FLAGS = /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_TMPFILE/

/**
 * The path a file-changing syscall writes: the new name for link/symlink/rename (the old name of a
 * rename is removed, which the snapshot reports), the path or the decoded fd otherwise.
 */
function writtenPath(syscall: string, args: readonly string[]): string | undefined {
  switch (syscall) {
    case 'rename':
    case 'link':
      return unquote(args[1])
    case 'symlink':
      return unquote(args[1])
    case 'renameat':
    case 'renameat2':
    case 'linkat': {
      const p = unquote(args[3])
      return p === undefined ? undefined : joinPath(dirOf(args[2]), p)
    }
    case 'symlinkat': {
      const p = unquote(args[2])
      return p === undefined ? undefined : joinPath(dirOf(args[1]), p)
    }
  }
  const at = syscall.endsWith('at')
  const p = unquote(at ? args[1] : args[0])
  // utimensat(fd, NULL, ...) changes an open file's times: the fd is decoded by -y.
  if (p === undefined) return dirOf(args[0])
  return joinPath(at ? dirOf(args[0]) : undefined, p)
}

/** Parse the per-process trace files (strace -ff): `files` maps pid to the file's text. */
export function parseTrace(files: ReadonlyMap<number, string>): Trace {
  const execs: Exec[] = []
  const network: TraceEvent[] = []
  const writes: TraceEvent[] = []
  const privileged: TraceEvent[] = []
  for (const [pid, text] of [...files].sort((a, b) => a[0] - b[0])) {
    for (const line of text.split('\n')) {
      const m = LINE.exec(line)
      if (m === null) continue
      const [, syscall, argText, ret] = m as unknown as [string, string, string, string]
      const ok = ret !== '?' && !ret.startsWith('-')
      const args = splitArgs(argText)
      const event = (path?: string): TraceEvent =>
        path === undefined ? { pid, syscall, ok, line } : { pid, syscall, path, ok, line }
      switch (syscall) {
        case 'execve':
        case 'execveat': {
          const pathArg = syscall === 'execve' ? args[0] : args[1]
          execs.push({
            pid,
            path: unquote(pathArg) ?? '?',
            argv: args[syscall === 'execve' ? 1 : 2] ?? '',
            ok,
          })
          continue
        }
        case 'socket': {
          // Creating an internet socket is no traffic yet (libraries probe for IPv6 that way); raw
          // internet sockets, and families other than local, netlink (raw by nature: `ss`, `ip`) and
          // internet, are.
          const family = args[0] ?? ''
          const local = /^AF_(UNIX|LOCAL|NETLINK)$/.test(family)
          const internet = /^AF_INET6?$/.test(family)
          if (!(local || internet) || (internet && /SOCK_(RAW|PACKET)/.test(args[1] ?? '')))
            network.push(event())
          continue
        }
        case 'listen':
          // strace -yy shows the socket's protocol: a listening TCP socket is a server.
          if (/<(TCP|TCPv6|UDP|UDPv6|SCTP|SCTPv6)[:>]/.test(args[0] ?? '')) network.push(event())
          continue
        case 'connect':
        case 'sendto':
        case 'sendmsg':
        case 'sendmmsg': {
          const family = /sa_family=(AF_\w+)/.exec(argText)?.[1]
          if (family !== undefined && !/^AF_(UNIX|LOCAL|NETLINK)$/.test(family)) network.push(event())
          continue
        }
        case 'open':
        case 'creat':
        case 'openat':
        case 'openat2': {
          const atForm = syscall === 'openat' || syscall === 'openat2'
          const path = unquote(atForm ? args[1] : args[0])
          const flags = atForm ? (args[2] ?? '') : syscall === 'creat' ? 'O_CREAT' : (args[1] ?? '')
          if (path !== undefined && WRITE_FLAGS.test(flags))
            writes.push(event(joinPath(atForm ? dirOf(args[0]) : undefined, path)))
          continue
        }
        case 'syslog':
          // Reading the kernel log is not a change; clearing it or setting the console level is.
          if (/SYSLOG_ACTION_(CLEAR|READ_CLEAR|CONSOLE)/.test(args[0] ?? '')) privileged.push(event())
          continue
        case 'setpriority':
        case 'ioprio_set':
        case 'sched_setaffinity':
        case 'sched_setscheduler':
        case 'sched_setparam':
        case 'sched_setattr':
        case 'prlimit64': {
          // A process may change itself (nice, ionice, prlimit on their own exec); another one, no.
          const target = syscall === 'setpriority' || syscall === 'ioprio_set' ? args[1] : args[0]
          if (syscall === 'prlimit64' && args[2] === 'NULL') continue
          if (target !== undefined && target !== '0' && target !== String(pid)) privileged.push(event())
          continue
        }
        default:
          if (PRIVILEGED.has(syscall)) {
            privileged.push(event())
            continue
          }
          if (ALWAYS_WRITES.has(syscall)) writes.push(event(writtenPath(syscall, args)))
      }
    }
  }
  return { execs, network, writes, privileged }
}
