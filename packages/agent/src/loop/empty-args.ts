// Empty-arguments calls (seed 003 §4.5 F1): a model under context pressure sometimes calls a tool
// with `{}`. The call still goes through the pipeline (it is logged and fails validation as
// INVALID_ARGS), but the model is told, in the result, what it left out. The hint is given at most
// `maxEmptyArgRetries` times per run: an unbounded "retry with a hint" is itself a loop (§13).
import type { ToolResult, ToolSchema } from '@toolgate/core'

/** `""`, whitespace, `{}` or `null` as the raw argument text. */
export function isEmptyArguments(raw: string): boolean {
  const text = raw.trim()
  if (text === '' || text === 'null') return true
  try {
    const value: unknown = JSON.parse(text)
    return (
      typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
    )
  } catch {
    return false
  }
}

export function requiredFields(schema: ToolSchema | undefined): string[] {
  const required = schema?.parameters.required
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : []
}

/** The model-visible hint that replaces the INVALID_ARGS text of an empty call. */
export function emptyArgsHint(name: string, required: readonly string[]): string {
  return (
    `Your ${name} call arrived with empty arguments, so it was not run. ${name} requires: ` +
    `${required.join(', ')}. Call ${name} again with every required argument written out.`
  )
}

/** An empty call that failed validation against a schema with required fields. */
export function needsEmptyArgsHint(raw: string, result: ToolResult, schema: ToolSchema | undefined): boolean {
  return result.error?.kind === 'invalid_input' && isEmptyArguments(raw) && requiredFields(schema).length > 0
}
