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
  // Found missing by the second red-team pass: obviously secret files of common tools.
  { path: '.claude.json', kind: 'file', reason: "another coding agent's settings and login (Claude Code)" },
  { path: '.gemini/oauth_creds.json', kind: 'file', reason: "another coding agent's login (Gemini CLI)" },
  { path: '.gitcookies', kind: 'file', reason: 'git HTTP cookies (Gerrit and other hosts): logins' },
  {
    path: '.config/containers/auth.json',
    kind: 'file',
    reason: 'container registry logins (podman, buildah)',
  },
  { path: '.config/glab-cli', kind: 'dir', reason: 'GitLab CLI tokens' },
  { path: '.config/helm', kind: 'dir', reason: 'chart repository passwords (helm)' },
  { path: '.minikube', kind: 'dir', reason: 'Kubernetes cluster client keys (minikube)' },
  { path: '.m2/settings.xml', kind: 'file', reason: 'Maven repository passwords' },
  { path: '.m2/settings-security.xml', kind: 'file', reason: 'the Maven master password' },
  { path: '.gradle/gradle.properties', kind: 'file', reason: 'Gradle repository and signing credentials' },
  { path: '.nuget/NuGet/NuGet.Config', kind: 'file', reason: 'NuGet API keys and feed passwords' },
  { path: '.config/composer/auth.json', kind: 'file', reason: 'Composer repository tokens' },
  { path: '.composer/auth.json', kind: 'file', reason: 'Composer repository tokens' },
  { path: '.config/pip/pip.conf', kind: 'file', reason: 'package index URLs with passwords (pip)' },
  { path: '.pip/pip.conf', kind: 'file', reason: 'package index URLs with passwords (pip)' },
  { path: '.config/pypoetry/auth.toml', kind: 'file', reason: 'package index passwords (Poetry)' },
  { path: '.yarnrc', kind: 'file', reason: 'package registry tokens (yarn 1)' },
  { path: '.bunfig.toml', kind: 'file', reason: 'package registry tokens (bun)' },
  { path: '.terraformrc', kind: 'file', reason: 'Terraform registry tokens' },
  { path: '.huggingface', kind: 'dir', reason: 'Hugging Face tokens' },
  { path: '.cache/huggingface/token', kind: 'file', reason: 'Hugging Face token' },
  { path: '.kaggle', kind: 'dir', reason: 'Kaggle API key' },
  { path: '.databrickscfg', kind: 'file', reason: 'Databricks tokens' },
  { path: '.config/doctl', kind: 'dir', reason: 'DigitalOcean tokens' },
  { path: '.fly', kind: 'dir', reason: 'Fly.io tokens' },
  { path: '.oci', kind: 'dir', reason: 'Oracle Cloud keys' },
  { path: '.config/hcloud', kind: 'dir', reason: 'Hetzner Cloud tokens' },
  { path: '.config/sops', kind: 'dir', reason: 'secret decryption keys (sops, age)' },
  { path: '.config/ngrok', kind: 'dir', reason: 'ngrok auth tokens' },
  { path: '.wrangler', kind: 'dir', reason: 'Cloudflare tokens (wrangler)' },
  { path: '.config/configstore', kind: 'dir', reason: 'tokens saved by Node CLIs (firebase, netlify, ...)' },
  { path: '.sentryclirc', kind: 'file', reason: 'Sentry auth token' },
  { path: '.wakatime.cfg', kind: 'file', reason: 'WakaTime API key' },
  { path: '.config/solana', kind: 'dir', reason: 'wallet keys' },
  { path: '.ethereum/keystore', kind: 'dir', reason: 'wallet keys' },
  { path: '.mozilla', kind: 'dir', reason: 'browser profiles: session cookies and saved passwords' },
  {
    path: '.config/google-chrome',
    kind: 'dir',
    reason: 'browser profiles: session cookies and saved passwords',
  },
  { path: '.config/chromium', kind: 'dir', reason: 'browser profiles: session cookies and saved passwords' },
  {
    path: '.config/BraveSoftware',
    kind: 'dir',
    reason: 'browser profiles: session cookies and saved passwords',
  },
  { path: '.thunderbird', kind: 'dir', reason: 'mail profiles: saved passwords' },
  {
    path: '.bash_history',
    kind: 'file',
    reason: 'shell history: tokens and passwords typed on command lines',
  },
  {
    path: '.zsh_history',
    kind: 'file',
    reason: 'shell history: tokens and passwords typed on command lines',
  },
  {
    path: '.local/share/fish/fish_history',
    kind: 'file',
    reason: 'shell history: tokens and passwords typed on command lines',
  },
  { path: '.psql_history', kind: 'file', reason: 'database shell history: passwords typed in it' },
  { path: '.mysql_history', kind: 'file', reason: 'database shell history: passwords typed in it' },
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
