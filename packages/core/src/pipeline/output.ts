import { describeThrown, failures } from '../errors/failures.js'
import { materialize } from '../json/materialize.js'
import type { RegisteredTool } from '../registry/registry.js'
import type { ContentBlock, JsonValue, ToolFailure } from '../types.js'
import { isContentBlock } from './execute.js'

// After the body: snapshot the canonical value (lossless JSON), validate it against
// output.schema, then render it (and presentationMeta) — both pure projections of (args, value).
// Any failure here is the tool's bug: `invalid_output`, never blamed on the model's arguments.

export type Rendered =
  | {
      readonly ok: true
      readonly value: JsonValue
      readonly content: readonly ContentBlock[]
      readonly meta?: JsonValue
    }
  | { readonly ok: false; readonly failure: ToolFailure }

export function renderValue(
  tool: RegisteredTool,
  args: JsonValue,
  raw: unknown,
  withMeta: boolean,
): Rendered | Promise<Rendered> {
  const name = tool.name
  const snapshot = materialize(raw)
  if (!snapshot.ok) {
    return {
      ok: false,
      failure: failures.invalidOutput(
        name,
        `its value ${snapshot.path.replace(/^\$/, 'value')} ${snapshot.problem}`,
      ),
    }
  }
  const checked = tool.output.validate(snapshot.value)
  // Validators are synchronous on the hot path; an async one costs a microtask, nothing more.
  return checked instanceof Promise
    ? checked.then((c) => renderChecked(tool, args, c, withMeta))
    : renderChecked(tool, args, checked, withMeta)
}

function renderChecked(
  tool: RegisteredTool,
  args: JsonValue,
  checked: Awaited<ReturnType<RegisteredTool['output']['validate']>>,
  withMeta: boolean,
): Rendered {
  const name = tool.name
  if (!checked.ok) {
    return {
      ok: false,
      failure: failures.invalidOutput(
        name,
        `its value does not match output.schema: ${checked.issues.join('; ').replace(/arguments/g, 'value')}`,
      ),
    }
  }
  const value = checked.value
  const output = tool.definition.output as {
    render(a: JsonValue, v: JsonValue): readonly ContentBlock[]
    presentationMeta?(a: JsonValue, v: JsonValue): JsonValue
  }
  const content = checkContent(() => output.render(args, value), true)
  if (!content.ok) return { ok: false, failure: failures.invalidOutput(name, `render ${content.problem}`) }
  if (!withMeta || !output.presentationMeta) return { ok: true, value, content: content.blocks }
  let meta: ReturnType<typeof materialize>
  try {
    meta = materialize(output.presentationMeta(args, value))
  } catch (error) {
    return {
      ok: false,
      failure: failures.invalidOutput(name, `presentationMeta threw (${describeThrown(error)})`),
    }
  }
  if (!meta.ok) {
    return {
      ok: false,
      failure: failures.invalidOutput(
        name,
        `presentationMeta ${meta.path.replace(/^\$/, 'meta')} ${meta.problem}`,
      ),
    }
  }
  return { ok: true, value, content: content.blocks, meta: meta.value }
}

/** Run a content producer and check what it made: frozen, well-formed content blocks. */
export function checkContent(
  produce: () => readonly ContentBlock[] | undefined,
  fresh = false,
): { ok: true; blocks: readonly ContentBlock[] } | { ok: false; problem: string } {
  let produced: unknown
  try {
    produced = produce()
  } catch (error) {
    return { ok: false, problem: `threw (${describeThrown(error)})` }
  }
  return (fresh && adoptBlocks(produced)) || validBlocks(produced)
}

/**
 * The hot path for render output, which is a fresh projection: when it is exactly an array of
 * well-formed blocks (plain objects, data properties, no extra keys), freeze it in place instead
 * of copying it. Anything else returns undefined and takes the full copying check.
 */
function adoptBlocks(produced: unknown): { ok: true; blocks: readonly ContentBlock[] } | undefined {
  if (!Array.isArray(produced) || Object.getPrototypeOf(produced) !== Array.prototype) return undefined
  for (let i = 0; i < produced.length; i++) {
    if (!Object.hasOwn(produced, i) || !isPlainBlock(produced[i])) return undefined
  }
  for (const block of produced) Object.freeze(block)
  return { ok: true, blocks: Object.freeze(produced) as readonly ContentBlock[] }
}

const BLOCK_FIELDS = { text: ['type', 'text'], image: ['type', 'mediaType', 'data'] } as const

function isPlainBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null || Object.getPrototypeOf(block) !== Object.prototype)
    return false
  const fields = BLOCK_FIELDS[(block as { type?: unknown }).type as keyof typeof BLOCK_FIELDS]
  if (!fields || Object.keys(block).length !== fields.length) return false
  for (const field of fields) {
    const own = Object.getOwnPropertyDescriptor(block, field)
    if (!own || typeof own.value !== 'string') return false
  }
  return true
}

export function validBlocks(
  produced: unknown,
): { ok: true; blocks: readonly ContentBlock[] } | { ok: false; problem: string } {
  // Hooks may return content they keep (or got frozen from us): always copy, never adopt.
  const snapshot = materialize(produced)
  if (!snapshot.ok)
    return { ok: false, problem: `returned non-JSON content: ${snapshot.path} ${snapshot.problem}` }
  if (!Array.isArray(snapshot.value) || !snapshot.value.every(isContentBlock)) {
    return {
      ok: false,
      problem: 'must return an array of { type: "text", text } or { type: "image", mediaType, data } blocks',
    }
  }
  return { ok: true, blocks: snapshot.value as readonly ContentBlock[] }
}
