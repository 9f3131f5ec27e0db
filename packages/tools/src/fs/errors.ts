import { errorDetail, ToolError } from '@toolgate/core'
import { type FileKind, KIND_TEXT } from './file-type.js'
import type { TargetRefusal } from './target-check.js'

/** The tools that open files (or directories) by a path the model gives. */
export type FileTool = 'read' | 'write' | 'edit' | 'grep' | 'glob'

/** Whether the tool only reads (its refusals say "nothing was read"). */
const reads = (tool: FileTool) => tool === 'read' || tool === 'grep' || tool === 'glob'

/** Turn a Node fs error into a ToolError the model can act on (what happened + what to do next). */
export function fsError(error: unknown, shown: string, action: string): ToolError {
  const code = (error as { code?: unknown } | null)?.code
  switch (code) {
    case 'ENOENT':
      return new ToolError(`${shown} does not exist. Check the path (use glob or ls to find the file).`, {
        info: { code: 'ENOENT', path: shown },
      })
    case 'EACCES':
    case 'EPERM':
      return new ToolError(
        `Permission denied while trying to ${action} ${shown}: the file's permissions do not allow it. Do not retry it; use another path, or ask the user to change the permissions.`,
        {
          info: { code: String(code), path: shown },
        },
      )
    case 'EISDIR':
      return new ToolError(`${shown} is a directory, not a file. Use ls to list it.`, {
        info: { code: 'EISDIR', path: shown },
      })
    case 'ELOOP':
      return new ToolError(
        `${shown} has too many symbolic links on its path (more than 40, or a loop). Check the path.`,
        { info: { code: 'ELOOP', path: shown } },
      )
    case 'ENOTDIR':
      return new ToolError(`A parent of ${shown} is a file, not a directory. Check the path.`, {
        info: { code: 'ENOTDIR', path: shown },
      })
    default: {
      // The system's text may hold host paths: errorDetail keeps one line, cut to the file names.
      const message = errorDetail(error instanceof Error ? error.message : String(error))
      return new ToolError(
        `Could not ${action} ${shown}: ${message}. Retry once; if it fails again, tell the user.`,
        {
          info: { code: typeof code === 'string' ? code : 'EIO', path: shown },
        },
      )
    }
  }
}

const USE = {
  read: 'read only opens regular files: reading this one could wait forever or never end',
  write: 'write only writes regular files',
  edit: 'edit only changes regular files',
  grep: 'grep only searches regular files and directories',
  glob: 'glob only searches directories',
} as const satisfies Record<FileTool, string>

/** A FIFO, socket or device where a regular file was expected: refused before it is opened. */
export function notRegularError(shown: string, kind: FileKind, tool: FileTool): ToolError {
  return new ToolError(`${shown} is ${KIND_TEXT[kind]}, not a regular file: ${USE[tool]}. Check the path.`, {
    info: { code: 'NOT_REGULAR_FILE', path: shown, kind },
  })
}

/** The opened file's real path failed the boundary or protected-path rules (`target-check.ts`). */
export function refusalError(shown: string, refusal: TargetRefusal, tool: FileTool): ToolError {
  const verb = reads(tool) ? 'read' : 'change'
  switch (refusal.kind) {
    case 'outside-workspace':
      return new ToolError(
        `${shown} leads through a symbolic link to a file outside the workspace, and ${tool} does not follow links out of the workspace. Nothing was ${verb === 'read' ? 'read' : 'changed'}. To use that file, name it by its own path (find it with \`realpath ${shown}\` in bash); the user may be asked.`,
        { info: { code: 'LINK_OUTSIDE_WORKSPACE', path: shown } },
      )
    case 'protected': {
      const { entry, named } = refusal
      const info = { code: 'PROTECTED_PATH', path: shown, protectedPattern: entry.pattern }
      if (entry.action === 'deny') {
        return new ToolError(
          `${shown} ${named ? 'is' : 'leads through a symbolic link to'} a protected file (${entry.reason}); ${tool} never ${verb}s it.`,
          { info },
        )
      }
      return new ToolError(
        `${shown} leads through a symbolic link to a protected file (${entry.reason}). Nothing was ${verb === 'read' ? 'read' : 'changed'}. Name that file itself as path, so the user can be asked to allow it.`,
        { info },
      )
    }
    default: {
      const never: never = refusal
      throw new Error(`unexpected refusal ${String(never)}`)
    }
  }
}

/**
 * A regular file with more than one name (hard links): its real path is only the name it was
 * opened by, so no check of that name can say what else it is (.git/config, a file outside).
 */
export function hardLinkedError(shown: string, links: number, tool: 'write' | 'edit'): ToolError {
  return new ToolError(
    `${shown} has ${links} names (hard links), and ${tool} never changes a file that has other names: another name may be a protected file (such as .git/config) or lie outside the workspace. Nothing was changed. To change this content, write it to a new file (or ask the user to remove the other link).`,
    { info: { code: 'HARD_LINKED', path: shown, links } },
  )
}

/** The path appeared and disappeared again while write was creating it (a racing program). */
export function vanishedError(shown: string): ToolError {
  return new ToolError(
    `${shown} appeared and disappeared while write was creating it, so nothing was written. Try again; if it keeps happening, another program is changing that path.`,
    { info: { code: 'PATH_CHANGED', path: shown } },
  )
}

/** The file changed identity between lstat, open and the descriptor check (a racing rename). */
export function changedError(shown: string, tool: FileTool): ToolError {
  return new ToolError(
    `${shown} changed while ${tool} was opening it (a file or link on its path was replaced), so nothing was ${reads(tool) ? 'read' : 'changed'}. Try again; if it keeps happening, another program is changing that path.`,
    { info: { code: 'PATH_CHANGED', path: shown } },
  )
}

/** No O_NOFOLLOW on this platform: a link could not be refused at open, so nothing is opened. */
export function unsupportedError(tool: FileTool): ToolError {
  return new ToolError(
    `${tool} is unavailable on this platform: it cannot open a file without following a symbolic link (no O_NOFOLLOW), so it cannot check what it opens. Use bash instead; the user may be asked.`,
    { info: { code: 'UNSUPPORTED_PLATFORM' } },
  )
}
