// ask_user (seed 003 §4.6, the outer loop): the model asks the person a question, with optional
// choices, when it cannot go on without a decision or a fact only they have. The host supplies the
// answerer (a terminal prompt); without one — a headless run — the tool says so plainly, and the
// model decides itself and says what it decided. Calls run one at a time (one question at once).
import { defineTool, type Plugin, textOutput } from '@toolgate/core'

export interface AskUserQuestion {
  readonly question: string
  readonly choices?: readonly string[]
}

/** Returns the person's answer, or undefined when they gave none (dismissed, cancelled). */
export type AskUserAnswerer = (question: AskUserQuestion, signal: AbortSignal) => Promise<string | undefined>

export interface AskUserOptions {
  /** Who answers. Absent (headless): every question gets HEADLESS_ANSWER. */
  readonly ask?: AskUserAnswerer
}

export const ASK_USER_DESCRIPTION =
  'Ask the user a question when you cannot go on without their decision or a fact only they know (which of two approaches, a missing requirement, a confirmation the task needs). Keep it to one short question; give `choices` when there are a few clear options. Do not ask what you can find out with the other tools.'

/** What a headless session answers (model-visible). */
export const HEADLESS_ANSWER =
  'No one can answer: this session has no person at a terminal. Decide yourself, go on, and say in your final answer what you decided and why.'

export const NO_ANSWER =
  'The user gave no answer. Decide yourself, go on, and say in your final answer what you decided and why.'

const PARAMETERS = {
  type: 'object',
  properties: {
    question: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: 'The question, in one or two sentences.',
    },
    choices: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 200 },
      minItems: 2,
      maxItems: 8,
      description: 'Answers the user can pick from (they may also type their own).',
    },
  },
  required: ['question'],
  additionalProperties: false,
} as const

export function askUserTool(options: AskUserOptions = {}): Plugin {
  return (ctx) => {
    ctx.register(
      defineTool({
        name: 'ask_user',
        description: ASK_USER_DESCRIPTION,
        parameters: PARAMETERS,
        output: textOutput(),
        presentCall: (args) => ({
          card: 'generic',
          title: `Ask: ${String((args as { question?: unknown }).question ?? '')}`,
          kind: 'question',
        }),
        async execute(args, exec) {
          const { question, choices } = args as { question: string; choices?: string[] }
          if (options.ask === undefined) return HEADLESS_ANSWER
          const answer = await options.ask({ question, ...(choices ? { choices } : {}) }, exec.signal)
          if (answer === undefined || answer.trim() === '') return NO_ANSWER
          return `The user answered: ${answer.trim()}`
        },
      }),
    )
  }
}
