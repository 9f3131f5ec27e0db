import { ToolError } from '@toolgate/core'

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
      return new ToolError(`Permission denied while trying to ${action} ${shown}.`, {
        info: { code: String(code), path: shown },
      })
    case 'EISDIR':
      return new ToolError(`${shown} is a directory, not a file. Use ls to list it.`, {
        info: { code: 'EISDIR', path: shown },
      })
    case 'ENOTDIR':
      return new ToolError(`A parent of ${shown} is a file, not a directory. Check the path.`, {
        info: { code: 'ENOTDIR', path: shown },
      })
    default: {
      const message = error instanceof Error ? error.message : String(error)
      return new ToolError(`Could not ${action} ${shown}: ${message}`, {
        info: { code: typeof code === 'string' ? code : 'EIO', path: shown },
      })
    }
  }
}
