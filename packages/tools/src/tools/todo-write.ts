// todo_write {todos}: replace the session's todo list. The list is harness state the UI shows
// (seed 003 §9.4); the model gets a compact echo of what it set, nothing addressed to it as orders.

import { defineTool } from '@toolgate/core'
import { z } from 'zod'
import type { ToolsEnv } from '../context.js'
import { plural } from '../util/format.js'
import { presenter, resultPresenter } from '../util/present.js'

const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const

const todoSchema = z.object({
  content: z.string().min(1).describe('What to do, as a short imperative sentence.'),
  status: z.enum(TODO_STATUSES).describe('pending, in_progress (one task at a time) or completed.'),
  id: z.string().min(1).optional().describe('A stable id for the task (optional).'),
})

export const todoWriteParameters = z.object({
  todos: z
    .array(todoSchema)
    .max(100)
    .describe('The complete new list (it replaces the previous one; send [] to clear it).'),
})
export type TodoWriteArgs = z.infer<typeof todoWriteParameters>

export const todoWriteValueSchema = z.object({ todos: z.array(todoSchema) })
export type TodoWriteValue = z.infer<typeof todoWriteValueSchema>

export const TODO_WRITE_DESCRIPTION = [
  'Keep a todo list for multi-step work (three or more steps, or when the user lists several tasks): send the whole list each time, with each task pending, in_progress or completed.',
  'Mark a task in_progress before starting it and completed as soon as it is done; keep one task in_progress at a time. Skip it for single, simple tasks.',
  'Returns the list as saved.',
].join(' ')

const MARK = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const satisfies Record<
  (typeof TODO_STATUSES)[number],
  string
>

export function todoWriteTool(env: ToolsEnv) {
  return defineTool({
    name: 'todo_write',
    description: TODO_WRITE_DESCRIPTION,
    parameters: todoWriteParameters,
    output: {
      schema: todoWriteValueSchema,
      render: (_args, value: TodoWriteValue) => [{ type: 'text', text: renderTodos(value) }],
    },
    async execute(args, exec): Promise<TodoWriteValue> {
      const todos = args.todos.map((t) => ({
        content: t.content,
        status: t.status,
        ...(t.id === undefined ? {} : { id: t.id }),
      }))
      env.todos = todos
      exec.emit('todo/write', { todos })
      return { todos }
    },
    presentCall: presenter(todoWriteParameters, (args) => ({
      card: 'generic' as const,
      title: `Update todos (${plural(args.todos.length, 'task')})`,
      kind: 'todo',
    })),
    presentResult: resultPresenter(todoWriteParameters, todoWriteValueSchema, (_args, value) => ({
      card: 'generic' as const,
      title: 'Todos',
      kind: 'todo',
      summary: summary(value),
    })),
  })
}

function summary(value: TodoWriteValue): string {
  const done = value.todos.filter((t) => t.status === 'completed').length
  const active = value.todos.filter((t) => t.status === 'in_progress').length
  return `${done}/${value.todos.length} completed${active > 0 ? `, ${active} in progress` : ''}`
}

export function renderTodos(value: TodoWriteValue): string {
  if (value.todos.length === 0) return '(todo list cleared: no tasks)'
  const lines = [`Todo list saved (${plural(value.todos.length, 'task')}: ${summary(value)}):`]
  for (const t of value.todos) lines.push(`${MARK[t.status]} ${t.content}`)
  return lines.join('\n')
}
