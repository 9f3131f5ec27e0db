import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const pkg = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url))

// Tests run against the TypeScript sources; `npm run build` is only for the CLI, the demo and bench.
export default defineConfig({
  resolve: {
    alias: {
      '@toolgate/core/node': fileURLToPath(new URL('./packages/core/src/node/index.ts', import.meta.url)),
      '@toolgate/core': pkg('core'),
      '@toolgate/policy/prompt': fileURLToPath(new URL('./packages/policy/src/prompt.ts', import.meta.url)),
      '@toolgate/agent/context-window': fileURLToPath(
        new URL('./packages/agent/src/context/context-window.ts', import.meta.url),
      ),
      '@toolgate/policy': pkg('policy'),
      '@toolgate/tools': pkg('tools'),
      '@toolgate/codemode': pkg('codemode'),
      '@toolgate/providers': pkg('providers'),
      '@toolgate/agent': pkg('agent'),
      '@toolgate/mcp/config-files': fileURLToPath(
        new URL('./packages/mcp/src/config/files.ts', import.meta.url),
      ),
      '@toolgate/mcp': pkg('mcp'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 20_000,
    pool: 'forks',
  },
})
