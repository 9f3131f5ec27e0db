import { readFileSync, writeFileSync } from 'node:fs'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'

// A README table of model-visible messages with their size in tokens, generated from the code
// that produces them, so the table cannot drift (issue 17). Tokens are counted with o200k_base
// (GPT-4o / GPT-5's encoding); other model families land within ~15% of it on English text.
// `UPDATE_README=1 npx vitest run <the readme test>` rewrites the section.

export type MessageRow = {
  readonly kind: string
  readonly code: string
  /** What produces it, when the kind and code do not say (the exact case). */
  readonly when?: string
  readonly message: string
}

const tokens = (text: string): number => countTokens(text)

const cell = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\|/g, '\\|').replace(/\n/g, '<br>')

export function messageTable(rows: readonly MessageRow[]): string {
  return [
    '| kind | code | when | tokens | message |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| \`${r.kind}\` | \`${r.code}\` | ${cell(r.when ?? '')} | ${tokens(r.message)} | ${cell(r.message)} |`,
    ),
  ].join('\n')
}

/** The README's text between the markers and the generated text (written instead when asked). */
export function readmeSection(
  readme: URL,
  name: string,
  generated: string,
): { readonly actual: string | undefined; readonly expected: string } {
  const start = `<!-- ${name}:start -->`
  const end = `<!-- ${name}:end -->`
  const expected = `${start}\n\n${generated}\n\n${end}`
  const text = readFileSync(readme, 'utf8')
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from === -1 || to === -1) return { actual: undefined, expected }
  if (process.env.UPDATE_README === '1') {
    writeFileSync(readme, `${text.slice(0, from)}${expected}${text.slice(to + end.length)}`)
    return { actual: expected, expected }
  }
  return { actual: text.slice(from, to + end.length), expected }
}
