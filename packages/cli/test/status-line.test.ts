import { describe, expect, test } from 'vitest'
import { createStyle } from '../src/render/colors.js'
import { renderStatusLine, type StatusLineInput } from '../src/render/status-line.js'

const plain = createStyle(false)
const base: StatusLineInput = {
  model: 'gpt-4.1-mini',
  contextTokens: 12_345,
  contextWindow: 1_047_576,
  preset: 'workspace-write',
}

describe('the interactive status line', () => {
  test('model, context used of the window, preset; cost when known; how the turn ended', () => {
    expect(renderStatusLine(base, plain, 160)).toBe('── gpt-4.1-mini · 12k/1.0M tokens · workspace-write')
    expect(
      renderStatusLine({ ...base, contextTokens: undefined, cost: 0.0042, ended: 'aborted' }, plain, 160),
    ).toBe('── gpt-4.1-mini · ?/1.0M tokens · $0.0042 · workspace-write · aborted')
  })

  test('MCP servers that are configured but not usable yet are counted; none pending says nothing', () => {
    expect(renderStatusLine({ ...base, mcp: { starting: 1, reconnecting: 0 } }, plain, 160)).toBe(
      '── gpt-4.1-mini · 12k/1.0M tokens · workspace-write · mcp: 1 starting',
    )
    expect(renderStatusLine({ ...base, mcp: { starting: 2, reconnecting: 1 } }, plain, 160)).toBe(
      '── gpt-4.1-mini · 12k/1.0M tokens · workspace-write · mcp: 2 starting, 1 reconnecting',
    )
    expect(renderStatusLine({ ...base, mcp: { starting: 0, reconnecting: 0 } }, plain, 160)).toBe(
      '── gpt-4.1-mini · 12k/1.0M tokens · workspace-write',
    )
  })

  test('cut to the width in columns; a model name cannot drive the terminal', () => {
    expect(renderStatusLine({ ...base, model: '模型\x1b[2J' }, plain, 20)).toBe('── 模型␛[2J · 12k/1…')
  })
})
