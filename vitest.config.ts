import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url))

// Tests run against the TypeScript sources; `npm run build` is only for the CLI, the demo and bench.
export default defineConfig({
  resolve: {
    alias: {
      '@toolgate/core/node': fileURLToPath(new URL('./packages/core/src/node/index.ts', import.meta.url)),
      '@toolgate/core': pkg('core'),
      '@toolgate/policy': pkg('policy'),
      '@toolgate/tools': pkg('tools'),
      '@toolgate/codemode': pkg('codemode'),
      '@toolgate/providers': pkg('providers'),
      '@toolgate/agent': pkg('agent'),
      '@toolgate/mcp': pkg('mcp'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
    // Many test files spend much of their time waiting for processes they start (bash under
    // bubblewrap, strace, the CLI binary, tmux, loopback servers): one file per core, where vitest's
    // default is one per core but one (a single worker, files one after another, on 2 cores). Not
    // more: several files here assert deadlines and memory in their own process, and a worker
    // starved by its neighbours' subprocesses misses them.
    maxWorkers: Math.max(2, availableParallelism()),
  },
})
