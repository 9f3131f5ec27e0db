/**
 * Programs that are never read-only, each with the reason the model reads. A program absent from
 * every table is not read-only either ("not in the read-only table"); these are listed because the
 * reason is better: a pager or editor runs shell commands, a daemon client or network tool reaches
 * state outside the workspace (seed 003 §8.4).
 */

const PAGER_OR_EDITOR = 'interactive pagers and editors can run shell commands and need a terminal'
const DAEMON =
  'talks to a daemon or cluster API (possibly remote) that holds state outside the workspace; treated as network access'
const NETWORK = 'reaches the network'

const each = (programs: readonly string[], why: string) => Object.fromEntries(programs.map((p) => [p, why]))

export const NEVER_READ_ONLY: Readonly<Record<string, string>> = {
  ...each(
    [
      'less',
      'more',
      'most',
      'pg',
      'vi',
      'vim',
      'nvim',
      'view',
      'vimdiff',
      'nano',
      'pico',
      'emacs',
      'ed',
      'ex',
      'man',
      'info',
      'top',
      'htop',
      'tmux',
      'screen',
    ],
    PAGER_OR_EDITOR,
  ),
  ...each(['docker', 'podman', 'kubectl', 'helm', 'systemctl', 'journalctl', 'launchctl', 'service'], DAEMON),
  ...each(
    [
      'curl',
      'wget',
      'ssh',
      'scp',
      'sftp',
      'nc',
      'ncat',
      'netcat',
      'socat',
      'telnet',
      'ftp',
      'ping',
      'ping6',
      'dig',
      'nslookup',
      'host',
      'getent',
      'traceroute',
      'http',
      'https',
      'aria2c',
    ],
    NETWORK,
  ),
  alias: 'defines an alias that can shadow any command',
  kill: 'sends signals to processes',
  pkill: 'sends signals to processes',
  killall: 'sends signals to processes',
  yes: 'prints without end',
  open: 'opens files with other programs',
  'xdg-open': 'opens files with other programs',
  pbcopy: 'writes the clipboard',
  xclip: 'writes the clipboard',
  make: 'runs the recipes of a Makefile',
}
