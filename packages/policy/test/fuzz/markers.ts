// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
/**
 * Marker programs: shims placed first on the sandbox's PATH for programs that a read-only command
 * must never run. A shim records its name and arguments to the marker directory (outside the fixture
 * tree) and exits without doing anything, so a misclassified `rm -rf` is recorded, not executed.
 * The same names are checked in the execve trace, which also catches runs by absolute path
 * (`/bin/sh -c` from git's run-command, `/usr/bin/touch`) that bypass PATH.
 */

/** The payload program of generated commands: no real program has this name. */
export const PAYLOAD = 'pwned'

export const MARKER_PROGRAMS: readonly string[] = [
  PAYLOAD,
  // Writers.
  'touch',
  'rm',
  'rmdir',
  'mkdir',
  'mv',
  'cp',
  'ln',
  'chmod',
  'chown',
  'chgrp',
  'truncate',
  'shred',
  'install',
  'dd',
  'mktemp',
  'mkfifo',
  'mknod',
  'split',
  'csplit',
  'patch',
  // Shells and interpreters (node is not one: npm is a node script).
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'fish',
  'python',
  'python3',
  'perl',
  'ruby',
  'php',
  'lua',
  // Programs git and others run on request: signature verification, pagers, editors, browsers.
  'gpg',
  'gpg2',
  'gpgsm',
  'gpgv',
  'ssh-keygen',
  'less',
  'more',
  'most',
  'pager',
  'sensible-pager',
  'vi',
  'vim',
  'nvim',
  'view',
  'nano',
  'emacs',
  'ed',
  'ex',
  'editor',
  'sensible-editor',
  'xdg-open',
  'man',
  // Network clients and resolvers.
  'dig',
  'host',
  'nslookup',
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'ssh',
  'scp',
  'sftp',
  'telnet',
  'ftp',
  'rsync',
  'ping',
  // Privileges, processes, schedulers, build tools.
  'sudo',
  'su',
  'doas',
  'runuser',
  'chroot',
  'unshare',
  'nsenter',
  'kill',
  'pkill',
  'killall',
  'crontab',
  'at',
  'batch',
  'systemctl',
  'make',
  'npx',
  'yarn',
  'pnpm',
  'cargo',
]

const MARKER_SET: ReadonlySet<string> = new Set(MARKER_PROGRAMS)

export function isMarker(program: string): boolean {
  return MARKER_SET.has(program)
}

/** Hooks git runs; each is installed in the fixture repository as a marker (`hook:NAME`). */
export const GIT_HOOKS: readonly string[] = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'sendemail-validate',
  'fsmonitor-watchman',
  'post-index-change',
]

/** Inside the sandbox: where shims record runs (a bind of a per-worker host directory). */
export const SANDBOX_MARKER_DIR = '/run/tgfuzz/markers'
/** Inside the sandbox: the directory of shims, first on PATH. */
export const SANDBOX_MARKER_BIN = '/run/tgfuzz/bin'
export const MARKER_LOG = 'runs'

/**
 * The shim: dash, builtins only (no program runs between the call and the record), one line per
 * run appended to the log. `kind` is `run` for PATH shims and `hook` for git hooks. A lone
 * `--version`, `-V`, `-version` or `--help` (and perl's and php's `-v`, python's `-VV`) is answered without a record:
 * it runs nothing and reads no stdin. Not `-v` in general: `sh -v`, `python3 -v` and `ruby -v` go on
 * to run the script on stdin.
 */
export function shimScript(kind: 'run' | 'hook'): string {
  return [
    '#!/bin/sh',
    '# toolgate differential fuzzer marker: records that it ran, then does nothing.',
    'case "${0##*/}:$#:$1" in *:1:--version|*:1:--help|*:1:-V|*:1:-version|perl:1:-v|php:1:-v|python*:1:-VV) echo "marker ${0##*/}"; exit 0;; esac',
    `printf '%s %s' '${kind}' "\${0##*/}" >> ${SANDBOX_MARKER_DIR}/${MARKER_LOG}`,
    `for a in "$@"; do printf ' %s' "$a" >> ${SANDBOX_MARKER_DIR}/${MARKER_LOG}; done`,
    `printf '\\n' >> ${SANDBOX_MARKER_DIR}/${MARKER_LOG}`,
    'exit 0',
    '',
  ].join('\n')
}

export interface MarkerRun {
  readonly kind: 'run' | 'hook'
  readonly program: string
  readonly args: string
}

/** Parse the marker log (one run per line: `run|hook NAME ARGS...`). */
export function parseMarkerLog(text: string): MarkerRun[] {
  const out: MarkerRun[] = []
  for (const line of text.split('\n')) {
    if (line === '') continue
    const m = /^(run|hook) (\S+)(?: (.*))?$/s.exec(line)
    if (m === null) out.push({ kind: 'run', program: '?', args: line })
    else out.push({ kind: m[1] as 'run' | 'hook', program: m[2]!, args: m[3] ?? '' })
  }
  return out
}
