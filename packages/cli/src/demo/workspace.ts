// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are JavaScript source files of the demo project
// The demo's throwaway project: a small package with a README, a few sources and a lint script,
// created fresh in the OS temp directory for each run. The session log goes next to it, not in
// it, so the agent's tools never see (or could touch) the log being written.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface DemoWorkspace {
  /** The run's directory: holds `workspace/` and `session.jsonl`. */
  readonly dir: string
  /** The project the agent works in (the tools' root). */
  readonly root: string
  readonly logPath: string
}

const DEMO_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify(
    {
      name: 'demo-app',
      version: '1.0.0',
      type: 'module',
      scripts: { start: 'node src/index.js', lint: 'node scripts/lint.mjs src' },
    },
    null,
    2,
  )}\n`,
  'README.md': '# demo-app\n\nA tiny app that greets people.\n\n## Usage\n\nRun `npm start`.\n',
  'src/index.js':
    "import { greet } from './util.js'\nimport { config } from './config.js'\n\nconsole.log(greet(config.name))\n",
  'src/util.js': 'export function greet(name) {\n  var greeting = `Hello, ${name}!`\n  return greeting\n}\n',
  'src/config.js': "export const config = { name: 'world' }\n",
  'scripts/lint.mjs': [
    '// A tiny linter: flags `var` declarations. It pauses briefly to behave like a real linter',
    '// (so the CLI shows its progress line on a terminal).',
    "import { readdirSync, readFileSync } from 'node:fs'",
    "import { join } from 'node:path'",
    "const dir = process.argv[2] ?? 'src'",
    'await new Promise((resolve) => setTimeout(resolve, 600))',
    'let problems = 0',
    "for (const file of readdirSync(dir).filter((f) => f.endsWith('.js')).sort()) {",
    "  readFileSync(join(dir, file), 'utf8').split('\\n').forEach((line, i) => {",
    '    if (/\\bvar\\s/.test(line)) {',
    '      problems++',
    '      console.log(`${join(dir, file)}:${i + 1}  error  Unexpected var, use let or const instead  no-var`)',
    '    }',
    '  })',
    '}',
    "console.log(problems === 0 ? 'no problems' : `\\n✖ ${problems} problem${problems === 1 ? '' : 's'}`)",
    'process.exitCode = problems === 0 ? 0 : 1',
    '',
  ].join('\n'),
  '.git/hooks/README.sample': 'Git hooks live here. The demo agent is not allowed to write them.\n',
}

export function createDemoWorkspace(base = tmpdir()): DemoWorkspace {
  const dir = mkdtempSync(join(base, 'toolgate-demo-'))
  const root = join(dir, 'workspace')
  for (const [path, text] of Object.entries(DEMO_FILES)) {
    const file = join(root, path)
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, text)
  }
  return { dir, root, logPath: join(dir, 'session.jsonl') }
}
