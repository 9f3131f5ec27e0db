// @toolgate/agent: the agent loop on top of the tool runtime and the provider codecs.

export type { ResultBudgetOptions } from './budget/result-budget.js'
export { DEFAULT_RESULT_LIMIT, resultBudget, spillNotice, truncateMiddle } from './budget/result-budget.js'
export type { PushOutcome, Reminder, ReminderQueueOptions } from './context/reminders.js'
export { ReminderQueue, renderReminders } from './context/reminders.js'
export type { SessionTap } from './context/session-tap.js'
export { sessionTap } from './context/session-tap.js'
export type { AgentEvent, AgentResult, DoneReason, RunFailure, UsageTotals } from './events.js'
export { emptyArgsHint, isEmptyArguments } from './loop/empty-args.js'
export type { AgentRun, RunAgentOptions } from './loop/run-agent.js'
export { collectAgent, runAgent } from './loop/run-agent.js'
export type { TurnExecutorOptions } from './loop/turn-executor.js'
export { TurnExecutor } from './loop/turn-executor.js'
