// @toolgate/agent: the agent loop on top of the tool runtime and the provider codecs.

export type { LineCut, ResultBudgetOptions } from './budget/result-budget.js'
export {
  cutLines,
  DEFAULT_EXEMPT,
  DEFAULT_RESULT_TOKENS,
  displayPath,
  resultBudget,
  spillNotice,
} from './budget/result-budget.js'
export { SpillDirectory } from './budget/spill.js'
export { COMPACTION_PROMPT } from './context/compaction-prompts.js'
export {
  CONTEXT_WINDOWS,
  contextWindowOf,
  knownContextWindow,
  UNKNOWN_CONTEXT_WINDOW,
} from './context/context-window.js'
export {
  DeferredTools,
  type DeferredToolsOptions,
  deferredNote,
  notLoadedMessage,
} from './context/deferred-tools.js'
export type { ContextOptions, ElidedResult, PressureAction } from './context/pressure.js'
export { actionPayload, ContextManager, DEFAULT_OUTPUT_RESERVE } from './context/pressure.js'
export type { PushOutcome, Reminder, ReminderQueueOptions } from './context/reminders.js'
export { ReminderQueue, renderReminders } from './context/reminders.js'
export type { SessionTap } from './context/session-tap.js'
export { sessionTap } from './context/session-tap.js'
export { estimateTokens, messagesTokens, messageTokens } from './context/tokens.js'
export type { AgentEvent, AgentResult, DoneReason, RunFailure, UsageTotals } from './events.js'
export { emptyArgsHint, isEmptyArguments } from './loop/empty-args.js'
export type { ProgressOptions } from './loop/progress.js'
export type { AgentRun, RunAgentOptions } from './loop/run-agent.js'
export { collectAgent, runAgent } from './loop/run-agent.js'
export type { TurnExecutorOptions } from './loop/turn-executor.js'
export { TurnExecutor } from './loop/turn-executor.js'
export type { RebuiltHistory } from './session/rebuild.js'
export { HistoryBuilder, INTERRUPTED_TEXT, rebuildHistory } from './session/rebuild.js'
export type { AskUserAnswerer, AskUserOptions, AskUserQuestion } from './tools/ask-user.js'
export { ASK_USER_DESCRIPTION, askUserTool, HEADLESS_ANSWER, NO_ANSWER } from './tools/ask-user.js'
export type { TaskToolOptions } from './tools/task.js'
export { READ_ONLY_TOOLS, TASK_SYSTEM, taskTool } from './tools/task.js'
