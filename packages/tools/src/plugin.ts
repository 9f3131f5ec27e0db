import type { Plugin } from '@toolgate/core'
import { type BuiltinToolsOptions, createToolsEnv, type ToolsEnv } from './context.js'
import { jobTools } from './jobs/index.js'
import { bashTool } from './tools/bash.js'
import { editTool } from './tools/edit.js'
import { globTool } from './tools/glob.js'
import { grepTool } from './tools/grep.js'
import { lsTool } from './tools/ls.js'
import { readTool } from './tools/read.js'
import { todoWriteTool } from './tools/todo-write.js'
import { writeTool } from './tools/write.js'

/** The built-in tools of one environment, in the stable order they are registered (prompt cache). */
export function builtinToolDefinitions(env: ToolsEnv) {
  return [
    readTool(env),
    writeTool(env),
    editTool(env),
    lsTool(env),
    globTool(env),
    grepTool(env),
    bashTool(env),
    todoWriteTool(env),
  ] as const
}

/**
 * `runtime.use(builtinTools({ root }))`: read, write, edit, ls, glob, grep, bash, todo_write and the
 * job tools (job_output, job_list, job_kill). Each `use` gets its own read-before-edit
 * state, todo list and session temp directory: one runtime is one session.
 */
export function builtinTools(options: BuiltinToolsOptions): Plugin {
  createToolsEnv(options) // validate the options now, where the mistake is made
  return (ctx) => {
    const env = createToolsEnv(options)
    const [read, write, edit, ls, glob, grep, bash, todo] = builtinToolDefinitions(env)
    ctx.register(read)
    ctx.register(write)
    ctx.register(edit)
    ctx.register(ls)
    ctx.register(glob)
    ctx.register(grep)
    ctx.register(bash)
    ctx.register(todo)
    jobTools()(ctx)
  }
}
