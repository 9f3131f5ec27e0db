import { accessSync, constants, existsSync, readdirSync, readlinkSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { assertNever } from '@toolgate/core'
import { AUTO_RUN_PATHS, HOME_GIT_CONFIG, SHELL_RC_FILES } from './auto-run.js'
import { CREDENTIAL_STORES, SYSTEM_SECRET_FILES, SYSTEM_SECRET_PATTERN } from './credential-stores.js'
import { canonical, isFile, isRealDir, realOrUndefined } from './fs-kind.js'
import { gitLayout, inside } from './git-layout.js'
import { type GitStage, stageGitdir } from './git-staging.js'
import { emptyFile, privateDir } from './host-files.js'
import { hostPrograms } from './host-programs.js'
import type { Mount } from './mounts.js'
import { type AutoRunSnapshot, snapshotAutoRun } from './new-auto-run.js'
import {
  type RepositorySnapshot,
  repositoryCandidates,
  repositoryIndex,
  snapshotRepositories,
} from './new-repositories.js'
import type { SandboxPolicy } from './types.js'
import { scanWorkspace } from './workspace-scan.js'

/**
 * The filesystem side of a sandbox profile, per preset (README "Sandbox" has the table with the
 * reason for each line). Computed on the host right before each command, from the files as they
 * are now; `bwrapArgs` turns it into bubblewrap's command line.
 *
 * Order matters (a later mount covers an earlier one): the base (`/` read-only, or writable in
 * danger-full-access), private `/tmp` and `/run`, the workspace, then what must stay read-only
 * inside it (`.git`, hooks, auto-run files, `.toolgate`), then what must be hidden (`.env*`,
 * credential stores), last, so nothing re-exposes it.
 */
export interface ProfilePlan {
  readonly mounts: readonly Mount[]
  /** Git directories staged for this command; `sync()` each after it ended. */
  readonly stages: readonly GitStage[]
  readonly network: boolean
  /** The working directory inside the sandbox. */
  readonly cwd: string
  /** Writable profiles: the repositories before the command (`blockNewRepositories` after it). */
  readonly repositories: RepositorySnapshot | undefined
  /** Writable profiles: the auto-run files before the command (`blockNewAutoRun` after it). */
  readonly autoRun: AutoRunSnapshot | undefined
}

export function planProfile(policy: SandboxPolicy, env: NodeJS.ProcessEnv = process.env): ProfilePlan {
  const startedMs = Date.now()
  const root = canonical(policy.root)
  const home = canonical(policy.home ?? homedir())
  const writable = policy.mode !== 'read-only'
  const network = policy.network ?? policy.mode === 'danger-full-access'
  const mounts: Mount[] = []

  // Base: the host filesystem, read-only (writable only in danger-full-access).
  mounts.push(
    policy.mode === 'danger-full-access'
      ? { kind: 'bind', source: '/', target: '/' }
      : { kind: 'ro-bind', source: '/', target: '/' },
  )
  // Private /tmp: the host's /tmp holds other programs' sockets and files.
  mounts.push(
    policy.tmpDir !== undefined
      ? { kind: 'bind', source: canonical(policy.tmpDir), target: '/tmp' }
      : { kind: 'tmpfs', target: '/tmp' },
  )
  mounts.push(...runtimeMounts(env, network))

  // danger-full-access: the home directory's top level stays read-only (no new dotfiles that run
  // as code or configure git: ~/.bash_profile, ~/.gitconfig), its subdirectories are writable.
  // A workspace that holds the home directory (started in ~ or above it) would make it writable as
  // a whole: then these go after the workspace (no `~/.ssh/authorized_keys`, `~/.bash_profile` the
  // command creates; found by the red team), in workspace-write too.
  const homeInWorkspace = writable && inside(root, home)
  if (policy.mode === 'danger-full-access' && !homeInWorkspace) mounts.push(...homeMounts(home))
  // The workspace (re-bound even when read-only: it may live under the private /tmp).
  mounts.push(
    writable ? { kind: 'bind', source: root, target: root } : { kind: 'ro-bind', source: root, target: root },
  )
  if (homeInWorkspace) mounts.push(...homeMounts(home))
  // Protective mounts go where the host's own programs will look, links resolved on the host
  // (`placement`); `guarded` collects them, and their parent directories are pinned at the end.
  const place = placement(root, policy.mode, privateAreas(env, policy))
  const guardedTargets: string[] = [root]
  const guard = (mount: Mount) => {
    mounts.push(mount)
    guardedTargets.push(mount.target)
  }
  const guardIfExists = (path: string) => {
    const target = place.existing(path)
    if (target !== undefined) guard(readOnly(target))
    return target
  }

  const stages: GitStage[] = []
  let repositories: RepositorySnapshot | undefined
  let autoRun: AutoRunSnapshot | undefined
  try {
    const scan = scanWorkspace(root)
    if (writable) {
      const layout = gitLayout(root, home, env)
      // The home directory's top level is read-only (danger-full-access, or the workspace holds it).
      const readOnlyHome = policy.mode === 'danger-full-access' || homeInWorkspace ? home : undefined
      const stagingDir = policy.stagingDir ?? join(privateDir(), 'git-staging')
      switch (layout.entry.kind) {
        case 'dir':
        case 'symlink':
          break
        case 'file':
          guard({ kind: 'ro-bind', source: layout.entry.path, target: layout.entry.path })
          break
        case 'absent':
          // No repository: keep the name, so `git init` cannot make one the host's git trusts
          // (unless the command cannot create it anyway: a workspace that is the home directory).
          if (creatableInProfile(layout.entry.path, readOnlyHome))
            guard({ kind: 'empty-dir', target: layout.entry.path })
          break
        default:
          assertNever(layout.entry, 'git entry')
      }
      for (const gitdir of layout.gitdirs) {
        const stage = stageGitdir(gitdir, stagingDir, root)
        stages.push(stage)
        mounts.push(...stage.mounts)
        guardedTargets.push(gitdir)
      }
      const gitTops = new Set(layout.gitdirs)
      // Repositories inside the workspace: the walk's, and every gitlink's wherever it is (the
      // host's `git status` enters them). Existing ones read-only; new ones are renamed after.
      const index = repositoryIndex(layout, home)
      const candidates = repositoryCandidates(root, scan.repositories, index)
      const top = join(root, '.git')
      const nested = new Set([
        ...scan.nestedGit,
        ...candidates.filter((c) => c !== top && basename(c) === '.git'),
      ])
      // Only a path that is itself the mount point cannot be replaced: a link is not (its mount
      // goes on its target), so a repository put in its place is renamed after the command.
      const mounted = new Set<string>()
      for (const path of [...nested].sort()) if (guardIfExists(path) === path) mounted.add(path)
      if (layout.entry.kind === 'dir' || layout.entry.kind === 'file') mounted.add(top)
      for (const gitdir of layout.gitdirs) mounted.add(join(gitdir, 'HEAD'))
      repositories = snapshotRepositories(root, mounted, index, startedMs)
      // Hooks and configuration git reads: read-only where the profile writes (the workspace; in
      // danger-full-access everywhere). A missing one is covered too (an empty directory or file on
      // the host: no hooks, no settings), or the command could create it. The top of a staged
      // gitdir needs nothing: what is created there is never written back.
      const guarded = (path: string) =>
        (policy.mode === 'danger-full-access' || inside(root, path)) && !gitTops.has(dirname(path))
      for (const path of [...layout.hooks, ...layout.configFiles]) {
        if (!guarded(path)) continue
        if (existsSync(path)) {
          guardIfExists(path)
          continue
        }
        // A missing one in a missing directory: the cover goes on the first missing directory (a
        // directory bubblewrap made for a deeper cover could be renamed and replaced).
        const cover = place.missing(path)
        if (cover === undefined || !creatableInProfile(cover.target, readOnlyHome)) continue
        guard(
          cover.leaf && !layout.hooks.includes(path)
            ? { kind: 'empty-file', source: emptyFile(), target: cover.target }
            : { kind: 'empty-dir', target: cover.target },
        )
      }
      // Auto-run files: existing ones read-only (at any depth the walk reaches); missing ones are
      // not covered (an empty file changes what those tools do): renamed after the command.
      const autoRunNow = new Set([...AUTO_RUN_PATHS.map((auto) => join(root, auto.path)), ...scan.autoRun])
      for (const path of [...autoRunNow].sort()) guardIfExists(path)
      for (const rc of SHELL_RC_FILES) guardIfExists(join(root, rc))
      const toolgate = join(root, '.toolgate')
      if (existsSync(toolgate)) guardIfExists(toolgate)
      else if (creatableInProfile(toolgate, readOnlyHome)) guard({ kind: 'empty-dir', target: toolgate })
      for (const p of policy.protectedPaths ?? []) guardIfExists(absolute(p, root, home))
      // The agent's own host programs (bubblewrap, ripgrep): a command may not replace them.
      for (const program of hostPrograms()) guardIfExists(program)
      if (policy.mode === 'danger-full-access') {
        // Below the read-only top of the home directory: the git configuration directory.
        for (const config of HOME_GIT_CONFIG) {
          const path = join(home, config.path)
          if (existsSync(path)) guardIfExists(path)
          else if (config.kind === 'dir' && isRealDir(dirname(path)))
            guard({ kind: 'empty-dir', target: path })
        }
      }
    }
    if (writable) {
      autoRun = snapshotAutoRun(
        root,
        scan.autoRun,
        mounts.map((m) => m.target),
        startedMs,
      )
    }
    const hide = (path: string) => {
      const target = place.hidden(path)
      if (target !== undefined) mounts.push(...hideIfExists(target))
    }
    if (policy.exposeEnvFiles !== true) {
      for (const file of scan.envFiles) hide(file)
    }
    for (const store of CREDENTIAL_STORES) hide(join(home, store.path))
    for (const p of policy.credentialStores ?? []) hide(absolute(p, root, home))
    for (const file of SYSTEM_SECRET_FILES) hide(file)
    for (const file of systemSecretKeys()) hide(file)
    if (writable) mounts.splice(0, mounts.length, ...withPins(mounts, guardedTargets))
  } catch (error) {
    // A stage already made must not be left behind.
    for (const stage of stages) stage.sync()
    throw error
  }
  const cwd = policy.cwd === undefined ? root : resolve(root, policy.cwd)
  return { mounts, stages, network, cwd, repositories, autoRun }
}

/**
 * /run, /var/run, $XDG_RUNTIME_DIR and the SSH agent socket hold the sockets of host services
 * (the container daemon, the session bus, agents): an empty tmpfs over them. With the network on,
 * /etc/resolv.conf may point into /run (systemd-resolved): that one file is bound back read-only.
 */
function runtimeMounts(env: NodeJS.ProcessEnv, network: boolean): Mount[] {
  const mounts: Mount[] = [{ kind: 'tmpfs', target: '/run' }]
  const hidden = ['/run', '/tmp']
  if (isRealDir('/var/run')) {
    mounts.push({ kind: 'tmpfs', target: '/var/run' })
    hidden.push('/var/run')
  }
  const runtime = env.XDG_RUNTIME_DIR
  if (
    runtime !== undefined &&
    isAbsolute(runtime) &&
    isRealDir(runtime) &&
    !hidden.some((h) => inside(h, runtime))
  ) {
    mounts.push({ kind: 'empty-dir', target: runtime })
    hidden.push(runtime)
  }
  const agent = env.SSH_AUTH_SOCK
  if (agent !== undefined && isAbsolute(agent) && !hidden.some((h) => inside(h, agent))) {
    mounts.push(...hideIfExists(agent))
  }
  if (network) {
    const resolv = canonical('/etc/resolv.conf')
    if (resolv !== '/etc/resolv.conf' && hidden.some((h) => inside(h, resolv)) && isFile(resolv)) {
      mounts.push({ kind: 'ro-bind', source: resolv, target: resolv })
    }
  }
  return mounts
}

/**
 * Where the sandbox differs from the host: a path under one of these is not the host's file inside
 * (a private /tmp, an empty /run), so a mount there protects or hides nothing of the host's.
 */
function privateAreas(env: NodeJS.ProcessEnv, policy: SandboxPolicy): string[] {
  const areas = ['/tmp', '/run', '/var/run', canonical('/var/run')]
  for (const path of [env.XDG_RUNTIME_DIR, policy.tmpDir]) {
    if (path !== undefined && isAbsolute(path)) areas.push(canonical(path))
  }
  return areas
}

/**
 * Where a mount for a path the command may have shaped goes. bubblewrap resolves a mount's source
 * on the host but its destination inside the sandbox, through links the command made: a protected
 * name (`.bashrc`) made a link through the private /tmp bound whatever host path the link named on
 * the host (a credential store) at a path the command could read inside (found by the red team).
 * So every such mount goes on the path with its links resolved on the host, and only where the
 * sandbox shows the host's file: inside the workspace, or (danger-full-access, where the rest of
 * the host is writable) anywhere but a private area. Elsewhere nothing is needed: in the other
 * profiles everything outside the workspace is read-only, and a private area is not the host's.
 */
interface Placement {
  /** The mount point for an existing path, or undefined. */
  existing(path: string): string | undefined
  /**
   * The cover of a missing path: the first missing directory on the way to it (`leaf`: the path
   * itself), links resolved; a directory bubblewrap made for a deeper cover could be renamed.
   */
  missing(path: string): { readonly target: string; readonly leaf: boolean } | undefined
  /** Where to hide an existing secret (any profile: everything outside the workspace is readable). */
  hidden(path: string): string | undefined
}

/** Links followed while resolving a missing path (the kernel's own limit is 40). */
const MAX_LINKS = 40

function placement(root: string, mode: SandboxPolicy['mode'], privates: readonly string[]): Placement {
  const hostFile = (real: string) => !privates.some((area) => inside(area, real))
  const protective = (real: string) => inside(root, real) || (mode === 'danger-full-access' && hostFile(real))
  return {
    existing(path) {
      const real = realOrUndefined(path)
      return real !== undefined && protective(real) ? real : undefined
    },
    missing(path) {
      // What the host's programs would open: a dangling link at the name or on the way is
      // followed to where it leads; the cover goes on the first directory missing there.
      let links = 0
      let name = path
      for (let link = readLink(name); link !== undefined; link = readLink(name)) {
        if (++links > MAX_LINKS) return undefined
        name = resolve(dirname(name), link)
      }
      let missing = [basename(name)]
      let dir = dirname(name)
      while (!existsSync(dir)) {
        const link = readLink(dir)
        if (link !== undefined) {
          if (++links > MAX_LINKS) return undefined
          dir = resolve(dirname(dir), link)
          continue
        }
        const up = dirname(dir)
        if (up === dir) return undefined
        missing = [basename(dir), ...missing]
        dir = up
      }
      const real = realOrUndefined(dir)
      if (real === undefined) return undefined
      const target = join(real, missing[0]!)
      return protective(target) ? { target, leaf: missing.length === 1 } : undefined
    },
    hidden(path) {
      const real = realOrUndefined(path)
      return real !== undefined && (inside(root, real) || hostFile(real)) ? real : undefined
    },
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path)
  } catch {
    return undefined
  }
}

/**
 * A directory holding a protective mount point can be renamed, mount point and all, and a new
 * one put in its place (`mv tools tools.old && mkdir -p tools/hooks`): the host's git then read the
 * new hooks and included configuration (found by the red team). So each directory between a
 * protective mount and the writable mount it sits in is bound onto itself: still writable, but a
 * mount point, which cannot be renamed or removed (EBUSY). A bind takes the host's view of its
 * source, covering the sandbox's mounts below it, so the pins go right after the writable mount
 * they are in (the workspace; in danger-full-access also `/` and the home directory's
 * subdirectories), parents first.
 */
function withPins(mounts: readonly Mount[], targets: readonly string[]): Mount[] {
  const mountPoints = new Set(mounts.map((m) => m.target))
  const pins = new Map<number, Set<string>>()
  for (const target of targets) {
    for (let dir = dirname(target); !mountPoints.has(dir); dir = dirname(dir)) {
      const region = mounts.findLastIndex((m) => m.kind !== 'empty-file' && inside(m.target, dir))
      const m = mounts[region]
      if (m === undefined || m.kind !== 'bind' || m.source !== m.target) break // read-only or staged
      const set = pins.get(region) ?? new Set<string>()
      pins.set(region, set.add(dir))
    }
  }
  return mounts.flatMap((mount, i) => [
    mount,
    ...[...(pins.get(i) ?? [])]
      .sort((a, b) => a.length - b.length || a.localeCompare(b))
      .map((dir): Mount => ({ kind: 'bind', source: dir, target: dir })),
  ])
}

/**
 * Could a command in the profile create this missing path? Only if its nearest existing ancestor
 * is writable for us (the sandbox has our uid and no capabilities) and is not the read-only top of
 * the home directory (danger-full-access). Then the path needs a mount point; else nothing.
 */
function creatableInProfile(path: string, readOnlyHome: string | undefined): boolean {
  let dir = dirname(path)
  while (!existsSync(dir)) {
    const up = dirname(dir)
    if (up === dir) return false
    dir = up
  }
  if (dir === readOnlyHome) return false
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

function readOnly(path: string): Mount {
  return { kind: 'ro-bind', source: path, target: path }
}

/** Entries at the top of the home directory bound writable one by one; more: all read-only. */
const MAX_HOME_ENTRIES = 1024

/** danger-full-access: the home directory's top level read-only, its real subdirectories writable. */
function homeMounts(home: string): Mount[] {
  if (home === '/' || !isRealDir(home)) return []
  const mounts: Mount[] = [readOnly(home)]
  let names: string[]
  try {
    names = readdirSync(home).sort()
  } catch {
    return mounts
  }
  if (names.length > MAX_HOME_ENTRIES) return mounts
  for (const name of names) {
    const path = join(home, name)
    if (isRealDir(path)) mounts.push({ kind: 'bind', source: path, target: path })
  }
  return mounts
}

/** An empty read-only mount over an existing file or directory (any other type: an empty file). */
function hideIfExists(path: string): Mount[] {
  try {
    return statSync(path).isDirectory()
      ? [{ kind: 'empty-dir', target: path }]
      : [{ kind: 'empty-file', source: emptyFile(), target: path }]
  } catch {
    return [] // missing, or a dangling link: nothing to read there
  }
}

function systemSecretKeys(): string[] {
  try {
    return readdirSync(SYSTEM_SECRET_PATTERN.dir)
      .filter((n) => SYSTEM_SECRET_PATTERN.name.test(n))
      .sort()
      .map((n) => join(SYSTEM_SECRET_PATTERN.dir, n))
  } catch {
    return []
  }
}

function absolute(path: string, root: string, home: string): string {
  if (path === '~') return home
  if (path.startsWith('~/')) return join(home, path.slice(2))
  return isAbsolute(path) ? resolve(path) : resolve(root, path)
}
