import type { InnerCommand, Word } from './types.js'

/**
 * Shell code made of words, as `eval a b`, `git submodule foreach a b` and `watch a b` make it: the
 * program joins its arguments with spaces and runs the result through a shell. The code is judged
 * like any command line (`runs`); when a word is only known at run time the code is unknown, and
 * that is what the judgement gets (fail closed: a dynamic word can hold any command). No words, no
 * code.
 */
export function shellCodeFromWords(words: readonly Word[], via: string): InnerCommand[] {
  if (words.length === 0) return []
  const values: string[] = []
  for (const w of words) {
    if (w.kind !== 'static') return [{ kind: 'shell', code: unknownCode(), via }]
    values.push(w.value)
  }
  return [{ kind: 'shell', code: { kind: 'static', value: values.join(' ') }, via }]
}

const unknownCode = (): Word => ({
  kind: 'dynamic',
  why: 'code built from words only known at run time',
  prefix: '',
  split: false,
})
