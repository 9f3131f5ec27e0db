import type { JsonValue } from '@toolgate/core'
import { analyzeBash, type BashAnalysis } from './bash.js'
import { type ToolSpec, toolSpec } from './categories.js'
import { type ResolvedPath, resolvePath } from './paths.js'
import type { EngineSetup } from './setup.js'
import type { CallLike } from './types.js'

/**
 * What a call is about, read once before any step: the tool's category, the paths it names
 * (resolved: lexical and real), or for bash the classifier's analysis of the command. Rules and
 * protected paths are matched against these, never against the raw arguments, so another spelling
 * of the same file or command meets the same rule. `problem` is set when the arguments cannot be
 * read (the call is then refused, fail closed).
 */
export interface Subjects {
  readonly spec: ToolSpec | undefined
  readonly paths?: readonly { readonly written: string; readonly resolved: ResolvedPath }[]
  readonly bash?: BashAnalysis
  readonly problem?: string
}

export function subjectsOf(setup: EngineSetup, call: CallLike): Subjects {
  const spec = toolSpec(call.name, setup.tools)
  if (call.name === 'bash') {
    const command = argsOf(call).command
    if (typeof command !== 'string')
      return { spec, problem: "the 'command' argument is missing or not a string" }
    return { spec, bash: analyzeBash(command) }
  }
  if (spec?.paths === undefined) return { spec }
  const paths = spec.paths(argsOf(call))
  if (typeof paths === 'string') return { spec, problem: paths }
  return {
    spec,
    paths: paths.map((written) => ({
      written,
      resolved: resolvePath(written, setup.rootLexical, setup.home),
    })),
  }
}

function argsOf(call: CallLike): Readonly<Record<string, JsonValue>> {
  const a = call.arguments
  return typeof a === 'object' && a !== null && !Array.isArray(a)
    ? (a as Readonly<Record<string, JsonValue>>)
    : {}
}
