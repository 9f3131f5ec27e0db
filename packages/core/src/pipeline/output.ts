import { describeThrown, failures } from '../errors/failures.js'
import { materialize } from '../json/materialize.js'
import { markSnapshot } from '../json/snapshot.js'
import type { RegisteredTool } from '../registry/registry.js'
import type { ContentBlock, JsonValue } from '../types.js'
import { callerStop, GaveUp, stageStopped, waitFor } from './bounded.js'
import { isContentBlock } from './execute.js'
import type { CallState, Candidate, Outcome } from './state.js'

// After the body: snapshot the canonical value (lossless JSON), validate it against
// output.schema, then render it (and presentationMeta) — both pure projections of (args, value).
// Any failure here is the tool's bug: `invalid_output`, never blamed on the model's arguments.

type Rendered = Outcome<Candidate>

/**
 * The candidate result for the value the body (or a post-execute listener) produced. An async
 * output.schema validator (host code) is waited for within the call's bounds (bounded.ts); one
 * that stalls or rejects fails the output, never the pipeline.
 */
export function output(state: CallState, args: JsonValue, raw: unknown): Rendered | Promise<Rendered> {
  const tool = state.tool!
  const rendering = renderValue(tool, args, raw, state.exec.parent === undefined)
  if (!(rendering instanceof Promise)) return rendering
  return waitFor(
    state,
    'output',
    rendering,
    { signals: callerStop(state), budget: true },
    (waited): Rendered => {
      if (waited instanceof GaveUp || (!waited.ok && waited.stopped))
        return { ok: false, failure: stageStopped(state, 'output', waited).failure }
      if (!waited.ok)
        return {
          ok: false,
          failure: failures.invalidOutput(
            tool.name,
            `its output.schema validation failed: ${describeThrown(waited.error)}`,
          ),
        }
      return waited.value
    },
  )
}

function renderValue(
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
  let produced: unknown
  try {
    produced = output.render(args, value)
  } catch (error) {
    return { ok: false, failure: failures.invalidOutput(name, `render threw (${describeThrown(error)})`) }
  }
  // Render output is a fresh projection: adopted block by block, or fully checked.
  const content = adoptBlocks(produced) ?? validBlocks(produced)
  if (!content.ok) return { ok: false, failure: failures.invalidOutput(name, `render ${content.problem}`) }
  if (!withMeta || !output.presentationMeta)
    return { ok: true, value: { isError: false, content: content.blocks, value } }
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
  return { ok: true, value: { isError: false, content: content.blocks, value, meta: meta.value } }
}

/**
 * The hot path for render output: when it is a plain array of well-formed blocks (plain objects
 * holding exactly the declared fields), copy each block field by field (one read each, so a
 * getter cannot change what was checked) and freeze the copies. Anything else returns undefined
 * and takes the full check, which names the problem.
 */
function adoptBlocks(produced: unknown): { ok: true; blocks: readonly ContentBlock[] } | undefined {
  if (!Array.isArray(produced) || Object.getPrototypeOf(produced) !== Array.prototype) return undefined
  const length = produced.length
  const blocks = new Array<ContentBlock>(length)
  for (let i = 0; i < length; i++) {
    const block = i in produced ? copyBlock(produced[i]) : undefined
    if (block === undefined) return undefined
    blocks[i] = block
  }
  return { ok: true, blocks: Object.freeze(markSnapshot(blocks)) }
}

function copyBlock(block: unknown): ContentBlock | undefined {
  if (typeof block !== 'object' || block === null || Object.getPrototypeOf(block) !== Object.prototype)
    return undefined
  let fields = 0
  for (const _ in block) fields++
  const source = block as Record<string, unknown>
  const type = source.type
  if (type === 'text') {
    const text = source.text
    return fields === 2 && typeof text === 'string' ? Object.freeze({ type, text }) : undefined
  }
  if (type === 'image') {
    const mediaType = source.mediaType
    const data = source.data
    return fields === 3 && typeof mediaType === 'string' && typeof data === 'string'
      ? Object.freeze({ type, mediaType, data })
      : undefined
  }
  return undefined
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
