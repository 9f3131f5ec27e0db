/**
 * Files that run as code without the person invoking them (issue 11 §6): git hooks outside
 * `.git/hooks`, and files other tools execute on their own. Read-only in every sandbox profile
 * (when they exist) and write-protected in the permission engine's table (anywhere, `**\/`).
 * `core.hooksPath` and git's include files are found per workspace (`git-layout.ts`).
 */
export interface AutoRunPath {
  /** Relative to the workspace root. */
  readonly path: string
  readonly kind: 'dir' | 'file'
  readonly reason: string
}

export const AUTO_RUN_PATHS: readonly AutoRunPath[] = Object.freeze([
  { path: '.husky', kind: 'dir', reason: 'husky git hooks run as code on the next git command' },
  {
    path: '.pre-commit-config.yaml',
    kind: 'file',
    reason: 'the pre-commit hook runs the commands it names on the next git commit',
  },
  { path: '.envrc', kind: 'file', reason: 'direnv runs it as code when a shell enters the directory' },
  {
    path: '.vscode/tasks.json',
    kind: 'file',
    reason: 'editor tasks can run as code when the folder is opened',
  },
] satisfies AutoRunPath[])

/** Shell startup files: they run as code in every new shell. */
export const SHELL_RC_FILES: readonly string[] = Object.freeze([
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.inputrc',
])

/** The user's git configuration names programs git runs (relative to the home directory). */
export const HOME_GIT_CONFIG: readonly { readonly path: string; readonly kind: 'dir' | 'file' }[] =
  Object.freeze([
    { path: '.gitconfig', kind: 'file' },
    { path: '.config/git', kind: 'dir' },
  ])
