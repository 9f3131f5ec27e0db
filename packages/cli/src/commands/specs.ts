// The command-line surface: every command's options and help, in one light module. `main` parses
// and prints help from these without loading any command (a command's code, and the packages it
// needs, are imported only when it runs: `toolgate --help` stays at node's own start-up time).
import type { CommandSpec, OptionSpec } from '../args.js'
import { DEMO_STEPS } from '../demo/steps.js'
import { PROVIDERS } from '../endpoint.js'

/** Options of every command that talks to a real model (`run`, `chat`). */
const MODEL_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'provider',
    short: 'p',
    kind: 'string',
    value: '<name>',
    choices: PROVIDERS,
    description: 'Wire format (env TOOLGATE_PROVIDER).',
  },
  {
    name: 'base-url',
    kind: 'string',
    value: '<url>',
    description:
      'API base URL (env TOOLGATE_BASE_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL): http://127.0.0.1:8080/v1 for an OpenAI-compatible server, the host root for Anthropic.',
  },
  { name: 'model', short: 'm', kind: 'string', value: '<id>', description: 'Model id (env TOOLGATE_MODEL).' },
  {
    name: 'root',
    kind: 'string',
    value: '<dir>',
    description: 'Workspace root the tools work in (default: the current directory).',
  },
  {
    name: 'preset',
    kind: 'string',
    value: '<preset>',
    choices: ['read-only', 'workspace-write', 'danger-full-access'],
    description: 'What the agent may do without asking (default workspace-write).',
  },
  {
    name: 'approval',
    kind: 'string',
    value: '<policy>',
    choices: ['on-request', 'never'],
    description: 'on-request: ask a person; never: every ask is denied (default on-request).',
  },
  {
    name: 'yes',
    short: 'y',
    kind: 'flag',
    description: 'Approve everything policy asks about (protected paths stay denied).',
  },
  {
    name: 'max-turns',
    kind: 'int',
    value: '<n>',
    min: 1,
    description: 'Stop after this many model requests per task (default 50).',
  },
  {
    name: 'max-tokens',
    kind: 'int',
    value: '<n>',
    min: 1,
    description: 'Output token limit of each model reply (default 8192).',
  },
  {
    name: 'max-tokens-total',
    kind: 'int',
    value: '<n>',
    min: 1,
    description: 'Stop before a request would take the input + output tokens of the task past this.',
  },
  {
    name: 'context-window',
    kind: 'int',
    value: '<n>',
    min: 1000,
    description:
      "The model's context window in tokens: every request is kept inside it (old results elided, older turns summarized), and MCP tools are deferred behind tool_search once their declarations would take 10% of it (default: from the table of known models, else 32768).",
  },
  {
    name: 'tool-search',
    kind: 'string',
    value: '<mode>',
    choices: ['emulated', 'native'],
    description:
      "How deferred MCP tools are found: emulated (toolgate's tool_search, every wire; default) or native (Anthropic's tool search tool; --provider anthropic only).",
  },
  {
    name: 'timeout',
    kind: 'int',
    value: '<s>',
    min: 1,
    description: 'Seconds to wait for the first byte of a reply, and between its chunks (default 120).',
  },
  {
    name: 'log',
    kind: 'string',
    value: '<path>',
    description: 'Session log file (JSONL; default: a new file in <root>/.toolgate/sessions/).',
  },
  {
    name: 'continue',
    short: 'c',
    kind: 'flag',
    description: 'Continue the latest session of this workspace (its log in <root>/.toolgate/sessions/).',
  },
  {
    name: 'resume',
    kind: 'string',
    value: '<log>',
    description: 'Continue the session of this log file (its history is rebuilt from the log).',
  },
  { name: 'no-code', kind: 'flag', description: 'Do not offer run_code (Code Mode).' },
]

const KEYS_EPILOG = [
  'Keys: TOOLGATE_API_KEY, else OPENAI_API_KEY (openai-chat, openai-responses) or ANTHROPIC_API_KEY (anthropic).',
  'A local OpenAI-compatible server needs no key:',
  '  toolgate run --provider openai-chat --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder "list the TODOs"',
]

export const runSpec: CommandSpec = {
  name: 'run',
  summary: 'run a task with an agent against a real model',
  positionals: [{ name: 'task', description: 'what the agent should do (quote it)', required: true }],
  options: [
    ...MODEL_OPTIONS,
    { name: 'json', kind: 'flag', description: 'Print one JSON event per line on stdout instead of cards.' },
  ],
  epilog: [...KEYS_EPILOG, 'Without a terminal (or with --json) asks are denied unless --yes is given.'].join(
    '\n',
  ),
}

export const chatSpec: CommandSpec = {
  name: 'chat',
  summary: 'an interactive session with an agent (also: toolgate with no command, on a terminal)',
  positionals: [],
  options: MODEL_OPTIONS,
  epilog: [
    'Type a message and press Enter. Ctrl-C cancels the current turn (every call still gets its result);',
    'Ctrl-C twice or Ctrl-D leaves. Slash commands: /help /compact /clear /cost /tools /preset <name> /log /exit.',
    ...KEYS_EPILOG,
  ].join('\n'),
}

export const demoSpec: CommandSpec = {
  name: 'demo',
  summary: 'run the scripted walkthrough (no model endpoint needed) in a throwaway workspace',
  positionals: [],
  options: [
    { name: 'json', kind: 'flag', description: 'Print one JSON event per line on stdout instead of cards.' },
    {
      name: 'yes',
      short: 'y',
      kind: 'flag',
      description:
        'Answer approval prompts automatically even on a terminal (demo policy: only the scripted lint command is approved).',
    },
    {
      name: 'dir',
      kind: 'string',
      value: '<path>',
      description: 'Create the temporary workspace under this directory (default: the OS temp dir).',
    },
    {
      name: 'no-code',
      kind: 'flag',
      description: 'Leave out the run_code step even when Code Mode is available.',
    },
  ],
  epilog: [
    'A scripted model (no network) works in a fresh temporary workspace through the real tools and policy:',
    ...DEMO_STEPS.map((step, i) => `  ${i + 1}. ${step}`),
    'On a terminal you answer the approval prompt: y = allow once, a = allow for this session, n = reject.',
    'Elsewhere the demo policy decides and says so: only the scripted lint command is auto-approved.',
  ].join('\n'),
}

export const replaySpec: CommandSpec = {
  name: 'replay',
  summary: 'show a session from its JSONL log: the conversation, the cards, who approved each call',
  positionals: [
    {
      name: 'log',
      description: 'the session log (a .jsonl file written by demo, run or chat)',
      required: true,
    },
  ],
  options: [],
  epilog:
    'Exit codes: 0 replayed (lines that are not session events are reported and skipped), 3 the log is missing, unreadable or not a session log.',
}

export const mcpSpec: CommandSpec = {
  name: 'mcp',
  summary: 'list the configured MCP servers, approve a project server, or serve the built-in tools over MCP',
  positionals: [
    { name: 'action', description: 'list | approve | serve', required: true },
    { name: 'server', description: 'the server to approve', required: false },
  ],
  options: [
    {
      name: 'root',
      kind: 'string',
      value: '<dir>',
      description:
        'Workspace root with .mcp.json / .toolgate/settings.json (default: the current directory).',
    },
    { name: 'json', kind: 'flag', description: 'list: print the report as JSON.' },
    {
      name: 'preset',
      kind: 'string',
      value: '<preset>',
      choices: ['read-only', 'workspace-write', 'danger-full-access'],
      description: 'serve: what a client may do without an approval (default workspace-write).',
    },
    {
      name: 'log',
      kind: 'string',
      value: '<path>',
      description: 'serve: session log file (JSONL; default: a new file in the temp dir).',
    },
  ],
  epilog: [
    'list starts every approved server, waits until each is connected or failed, prints its state, tool count',
    'and the bytes of its tool declarations, then stops them. Project servers start only once approved.',
    'serve speaks MCP on stdin/stdout: the built-in tools with policy, sandbox and session log; an ask becomes',
    "an elicitation request to the client (a client without elicitation gets a denial). Register it in a client's",
    'config as { "command": "toolgate", "args": ["mcp", "serve", "--root", "/path/to/workspace"] }.',
  ].join('\n'),
}
