// UI cards for the event stream (seed 001 §6.12, seed 003 §9.4): computed from the tool's own pure
// presentCall/presentResult, never sent to the model. Core exposes a call's definition only to
// plugins (`ctx.toolOf`), so we borrow that lookup once through a plugin that is disposed at once.
import type {
  AnyToolDefinition,
  JsonValue,
  Runtime,
  ToolCallView,
  ToolResult,
  ToolResultView,
} from '@toolgate/core'

type Lookup = (q: { name: string; agent?: string }) => AnyToolDefinition | undefined

export interface Cards {
  call(name: string, agent: string | undefined, args: string): ToolCallView | undefined
  result(
    name: string,
    agent: string | undefined,
    args: string,
    result: ToolResult,
  ): ToolResultView | undefined
  definition(name: string, agent: string | undefined): AnyToolDefinition | undefined
}

export function createCards(runtime: Runtime): Cards {
  let lookup: Lookup = () => undefined
  const borrowed = runtime.use((ctx) => {
    lookup = (q) => ctx.toolOf(q)
  })
  borrowed.dispose()
  const definition = (name: string, agent: string | undefined) =>
    lookup(agent === undefined ? { name } : { name, agent })
  return {
    definition,
    call(name, agent, args) {
      const tool = definition(name, agent) as
        | { presentCall?: (a: JsonValue) => ToolCallView | undefined }
        | undefined
      // Most tools present nothing: ask before parsing the arguments (issue 14 §3).
      if (!tool?.presentCall) return undefined
      const parsed = parse(args)
      if (parsed === undefined) return undefined
      try {
        return tool.presentCall(parsed) ?? undefined
      } catch {
        // A card is decoration: a throwing presenter never breaks the run.
        return undefined
      }
    },
    result(name, agent, args, result) {
      const tool = definition(name, agent) as
        | { presentResult?: (a: JsonValue, r: ToolResult) => ToolResultView | undefined }
        | undefined
      if (!tool?.presentResult) return undefined
      const parsed = parse(args)
      if (parsed === undefined) return undefined
      try {
        return tool.presentResult(parsed, result) ?? undefined
      } catch {
        return undefined
      }
    },
  }
}

function parse(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return undefined
  }
}
