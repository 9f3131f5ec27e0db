/**
 * Credential stores: ONE list, used by the sandbox (empty mounts over them, whatever the command)
 * and by the permission engine's protected table (read and write denied for the other tools), so
 * the two cannot drift (issue 11 §3; DESIGN §6 "empty mounts over credential stores").
 *
 * Paths are relative to the home directory. `dir` stores are covered by an empty read-only tmpfs,
 * `file` stores by /dev/null. Only stores that exist are covered: the home directory is read-only
 * in the read-only and workspace-write profiles, so a missing store cannot be created there (see
 * README "Sandbox" for danger-full-access).
 */
export interface CredentialStore {
  /** Relative to the home directory. */
  readonly path: string
  readonly kind: 'dir' | 'file'
  /** Why it is hidden: shown to the person and the model when a tool call touches it. */
  readonly reason: string
}

export const CREDENTIAL_STORES: readonly CredentialStore[] = Object.freeze([
  {
    path: '.ssh',
    kind: 'dir',
    reason: 'SSH keys and configuration: reading them leaks credentials, changing them grants access',
  },
  { path: '.aws', kind: 'dir', reason: 'cloud credentials' },
  { path: '.gnupg', kind: 'dir', reason: 'private signing and encryption keys' },
  { path: '.git-credentials', kind: 'file', reason: 'stored git passwords and tokens' },
  { path: '.config/git/credentials', kind: 'file', reason: 'stored git passwords and tokens' },
  { path: '.netrc', kind: 'file', reason: 'stored logins for network services' },
  { path: '.config/gh', kind: 'dir', reason: 'GitHub CLI tokens' },
  { path: '.config/hub', kind: 'file', reason: 'GitHub tokens' },
  { path: '.docker', kind: 'dir', reason: 'container registry logins' },
  { path: '.kube', kind: 'dir', reason: 'Kubernetes cluster credentials' },
  { path: '.npmrc', kind: 'file', reason: 'npm registry tokens' },
  { path: '.yarnrc.yml', kind: 'file', reason: 'package registry tokens' },
  { path: '.pypirc', kind: 'file', reason: 'Python package index passwords' },
  { path: '.config/gcloud', kind: 'dir', reason: 'cloud credentials' },
  { path: '.azure', kind: 'dir', reason: 'cloud credentials' },
  { path: '.cargo/credentials.toml', kind: 'file', reason: 'crates.io tokens' },
  { path: '.cargo/credentials', kind: 'file', reason: 'crates.io tokens' },
  { path: '.gem/credentials', kind: 'file', reason: 'RubyGems tokens' },
  { path: '.terraform.d/credentials.tfrc.json', kind: 'file', reason: 'Terraform Cloud tokens' },
  { path: '.vault-token', kind: 'file', reason: 'HashiCorp Vault token' },
  { path: '.password-store', kind: 'dir', reason: 'pass password store' },
  { path: '.local/share/keyrings', kind: 'dir', reason: 'desktop keyrings' },
  { path: '.config/op', kind: 'dir', reason: '1Password CLI sessions' },
  // Found missing by the red-team audit: database passwords, object-store keys, other agents' logins.
  { path: '.pgpass', kind: 'file', reason: 'stored PostgreSQL passwords' },
  { path: '.my.cnf', kind: 'file', reason: 'stored MySQL passwords' },
  { path: '.s3cfg', kind: 'file', reason: 'object storage keys (s3cmd)' },
  { path: '.boto', kind: 'file', reason: 'cloud storage keys (gsutil, boto)' },
  { path: '.config/rclone', kind: 'dir', reason: 'cloud storage tokens (rclone)' },
  { path: '.config/github-copilot', kind: 'dir', reason: 'GitHub Copilot tokens' },
  { path: '.claude/.credentials.json', kind: 'file', reason: "another coding agent's login (Claude Code)" },
  { path: '.codex/auth.json', kind: 'file', reason: "another coding agent's login (Codex CLI)" },
] satisfies CredentialStore[])

/**
 * System files that hold secrets readable by the host's root: a sandbox started by root maps to
 * root (without capabilities), and the owner's read permission needs none.
 */
export const SYSTEM_SECRET_FILES: readonly string[] = Object.freeze(['/etc/shadow', '/etc/gshadow'])

/** Host SSH private keys (`/etc/ssh/ssh_host_*_key`), found by name at profile time. */
export const SYSTEM_SECRET_PATTERN = { dir: '/etc/ssh', name: /^ssh_host_.*_key$/ } as const

/**
 * Secrets of the host outside the home directory, as globs for the permission table: the sandbox
 * hides them from bash (its own /proc, an empty /run, empty files over the system secret files),
 * but the file tools run in the agent's process, outside any sandbox. `/proc/<pid>/environ` of the
 * agent holds the provider's API key (the block it started with: removing a variable from
 * `process.env` does not change it), and other processes of the user hold theirs (found by the red
 * team: in danger-full-access `read /proc/self/environ` returned the CLI's key).
 */
export const HOST_SECRET_PATHS: readonly { readonly pattern: string; readonly reason: string }[] =
  Object.freeze([
    {
      pattern: '/proc/**/{environ,mem}',
      reason: "a process's environment or memory (the agent's own holds its API key)",
    },
    ...SYSTEM_SECRET_FILES.map((file) => ({ pattern: file, reason: 'password hashes of the system' })),
    { pattern: `${SYSTEM_SECRET_PATTERN.dir}/ssh_host_*_key`, reason: "the host's SSH private keys" },
    { pattern: '/run/secrets/**', reason: 'container secrets (Docker, Kubernetes)' },
    { pattern: '/var/run/secrets/**', reason: 'container secrets (Docker, Kubernetes)' },
  ])
