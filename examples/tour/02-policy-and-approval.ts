// One policy pipeline for every call: a pre-execute listener asks, a person (here a scripted
// approver) answers, a monotonic guard can only deny, and the session log records it all.
import { createApprovalService, createRuntime, defineTool, textOutput } from '@toolgate/core'
import { z } from 'zod'

export async function main() {
  const approval = createApprovalService()
  approval.answer(async (request) => (request.toolName === 'deploy' ? 'allowed-once' : 'rejected'))
  const runtime = createRuntime({ approval })
  runtime.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy the given service to staging.',
      parameters: z.object({ service: z.string() }),
      output: textOutput(),
      execute: async (args) => `deployed ${args.service}`,
    }),
  )
  runtime.on('tools/pre-execute', (exec, next) =>
    exec.name === 'deploy' ? { kind: 'ask', reason: 'deploys change shared state' } : next(),
  )
  runtime.guard((exec) =>
    (exec.arguments as { service?: string }).service === 'billing'
      ? 'billing is frozen this week; deploy another service'
      : undefined,
  )
  const allowed = await runtime.execute({ callId: 'a', name: 'deploy', arguments: { service: 'web' } })
  const guarded = await runtime.execute({ callId: 'b', name: 'deploy', arguments: { service: 'billing' } })
  console.log(allowed.content[0], guarded.error)
  console.log(runtime.session.events().map((e) => e.type))
  return { allowed, guarded, events: runtime.session.events() }
}
