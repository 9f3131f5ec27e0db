import type { ToolResult } from '@toolgate/core'

/** The minimal Standard Schema surface the presenters need (zod v4 schemas have it). */
interface SafeParser<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false }
}

/**
 * Wrap a card builder so it is total (seed 001 §6.12): arguments from an old or malformed log parse
 * to `undefined` (the UI falls back to a generic card), and a builder that throws never breaks a
 * replay.
 */
export function presenter<A, R>(
  schema: SafeParser<A>,
  build: (args: A) => R | undefined,
): (args: unknown) => R | undefined {
  return (args) => {
    try {
      const parsed = schema.safeParse(args)
      return parsed.success ? build(parsed.data) : undefined
    } catch {
      return undefined
    }
  }
}

/** Same for results: only successful results with a value of the expected shape get a card. */
export function resultPresenter<A, V, R>(
  argsSchema: SafeParser<A>,
  valueSchema: SafeParser<V>,
  build: (args: A, value: V, result: ToolResult) => R | undefined,
): (args: unknown, result: ToolResult) => R | undefined {
  return (args, result) => {
    try {
      if (result.isError || result.value === undefined) return undefined
      const a = argsSchema.safeParse(args)
      const v = valueSchema.safeParse(result.value)
      return a.success && v.success ? build(a.data, v.data, result) : undefined
    } catch {
      return undefined
    }
  }
}

/** The UI-only meta of a file change (edit, write): the diff card's data, never model content. */
export function diffMeta(
  _args: unknown,
  value: { path: string; diff: string; added: number; removed: number },
): { path: string; diff: string; added: number; removed: number } {
  return { path: value.path, diff: value.diff, added: value.added, removed: value.removed }
}
