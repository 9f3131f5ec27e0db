import { stringifyJson } from '../json/stringify.js'
import type { SchemaInput } from '../schema/compile.js'
import type { ContentBlock, JsonValue } from '../types.js'
import type { InferSchema, ToolOutputDefinition } from './define.js'

// Output declarations for the two common shapes. Both render pure text; neither adds UI
// formatting (fences, colours) to model content.

const STRING_SCHEMA = Object.freeze({ type: 'string' })

/** A string value rendered as one text block (an empty string is said, not sent empty). */
export function textOutput<Args = unknown>(options?: { empty?: string }): ToolOutputDefinition<Args, string> {
  const empty = options?.empty ?? '(no output)'
  return {
    schema: STRING_SCHEMA,
    render: (_args, value) => [{ type: 'text', text: value === '' ? empty : value }],
  }
}

/** A JSON value (validated by `schema`) rendered as pretty JSON text. */
export function jsonOutput<S extends SchemaInput, Args = unknown>(
  schema: S,
): ToolOutputDefinition<Args, InferSchema<S>> {
  return {
    schema,
    render: (_args, value): readonly ContentBlock[] => [
      { type: 'text', text: stringifyJson(value as JsonValue, 2) },
    ],
  }
}
