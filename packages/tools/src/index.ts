// @toolgate/tools: the built-in tools (DESIGN.md §4, issue 4 §4). `runtime.use(builtinTools({ root }))`
// registers read, write, edit, ls, glob, grep, bash, todo_write, job_output, job_list and job_kill.
// Each tool is also available alone through its factory (`readTool(env)` with `createToolsEnv`).

export {
  type BuiltinToolsOptions,
  createToolsEnv,
  DEFAULT_CAPTURE_BYTES,
  DEFAULT_KILL_GRACE_MS,
  type GrepBackend,
  type SandboxOption,
  type ToolsEnv,
} from './context.js'
export {
  type DeclaredToolName,
  TOOL_DECLARATIONS,
  type ToolCategory,
  type ToolConcurrency,
  type ToolDeclaration,
} from './declarations.js'
export { type UnifiedDiff, unifiedDiff } from './fs/diff.js'
export { EDIT_MAX_BYTES } from './fs/guarded.js'
export { type FileStamp, FsObservations, type ObservationCheck } from './fs/observations.js'
export * from './jobs/index.js'
export { builtinToolDefinitions, builtinTools } from './plugin.js'
export {
  GREP_MAX_ENTRIES,
  GREP_MAX_LINE_CHARS,
  type GrepMode,
  type GrepValue,
  grepValueSchema,
} from './search/grep-result.js'
export { ripgrepAvailable } from './search/grep-rg.js'
export {
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_DESCRIPTION,
  BASH_ENV,
  BASH_MAX_TIMEOUT_MS,
  type BashArgs,
  type BashForeground,
  type BashValue,
  bashParameters,
  bashTool,
  bashValueSchema,
  renderBash,
} from './tools/bash.js'
export {
  EDIT_DESCRIPTION,
  type EditArgs,
  type EditValue,
  editParameters,
  editTool,
  editValueSchema,
  renderEdit,
} from './tools/edit.js'
export {
  GLOB_DESCRIPTION,
  GLOB_MAX_RESULTS,
  type GlobArgs,
  type GlobValue,
  globParameters,
  globTool,
  globValueSchema,
  renderGlob,
} from './tools/glob.js'
export { GREP_DESCRIPTION, type GrepArgs, grepParameters, grepTool, renderGrep } from './tools/grep.js'
export {
  LS_DESCRIPTION,
  LS_MAX_ENTRIES,
  type LsArgs,
  type LsValue,
  lsParameters,
  lsTool,
  lsValueSchema,
  renderLs,
} from './tools/ls.js'
export {
  READ_DESCRIPTION,
  READ_MAX_IMAGE_BYTES,
  READ_MAX_LINE_CHARS,
  READ_MAX_LINES,
  type ReadArgs,
  type ReadValue,
  readParameters,
  readTool,
  readValueSchema,
  renderRead,
} from './tools/read.js'
export {
  renderTodos,
  TODO_WRITE_DESCRIPTION,
  type TodoWriteArgs,
  type TodoWriteValue,
  todoWriteParameters,
  todoWriteTool,
  todoWriteValueSchema,
} from './tools/todo-write.js'
export {
  type DeferredCatalog,
  nameWords,
  renderSearch,
  scoreTool,
  TOOL_SEARCH_DESCRIPTION,
  type ToolSearchOptions,
  type ToolSearchValue,
  toolSearchParameters,
  toolSearchTool,
} from './tools/tool-search.js'
export {
  renderWrite,
  WRITE_DESCRIPTION,
  type WriteArgs,
  type WriteValue,
  writeParameters,
  writeTool,
  writeValueSchema,
} from './tools/write.js'
