import { appendFileSync } from 'node:fs'
import type { CampaignResult, Failure } from './campaign.js'

/** How to replay a case: the environment for `npm run fuzz`. */
export function replayHint(f: Pick<Failure, 'seed' | 'path' | 'command'>): string {
  if (f.path === '') return `FUZZ_COMMAND=${shellQuote(f.command)} npm run fuzz`
  return `FUZZ_SEED=${f.seed} FUZZ_PATH=${f.path} npm run fuzz`
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

export function describeFailure(f: Failure, title: string): string {
  const o = f.observation.exit
  return [
    `${title} (replay: ${replayHint(f)})`,
    `  command:    ${JSON.stringify(f.command)}`,
    `  classified: read-only (${f.reason})`,
    '  observed:',
    ...f.findings.slice(0, 12).map((x) => `    - ${x.kind}: ${x.detail}`),
    ...(f.findings.length > 12 ? [`    - ... ${f.findings.length - 12} more`] : []),
    `  exit: ${o.timedOut ? 'timed out' : o.signal !== null ? `signal ${o.signal}` : `code ${o.code}`} after ${Math.round(o.ms)} ms` +
      (o.stderr === '' ? '' : `; stderr: ${JSON.stringify(o.stderr.slice(0, 300))}`),
  ].join('\n')
}

export function describeCampaign(r: CampaignResult, seed: number): string {
  const lines = [
    `The differential fuzzer found ${r.failures.length} command(s) classified read-only that wrote, ran a` +
      ` hidden or forbidden program, or used the network (seed ${seed}; ${r.cases} cases, ${r.readOnly}` +
      ` read-only ones run in the sandbox, ${(r.ms / 1000).toFixed(1)} s).`,
  ]
  if (r.shrunk !== undefined) lines.push('', describeFailure(r.shrunk, 'Smallest (shrunk from the first)'))
  r.failures.slice(0, 10).forEach((f, i) => {
    lines.push('', describeFailure(f, `#${i + 1} case ${f.seed}:${f.path}`))
  })
  if (r.failures.length > 10)
    lines.push('', `... and ${r.failures.length - 10} more (FUZZ_REPORT=file.jsonl writes all).`)
  return lines.join('\n')
}

/** Append failures as JSON lines (command, replay, reason, findings, exit). */
export function writeReport(path: string, failures: readonly Failure[]): void {
  const lines = failures.map((f) =>
    JSON.stringify({
      command: f.command,
      replay: replayHint(f),
      reason: f.reason,
      findings: f.findings,
      exit: {
        code: f.observation.exit.code,
        timedOut: f.observation.exit.timedOut,
        stderr: f.observation.exit.stderr,
      },
    }),
  )
  if (lines.length > 0) appendFileSync(path, `${lines.join('\n')}\n`)
}
