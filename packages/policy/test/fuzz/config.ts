/**
 * Settings of a fuzzing run, from the environment (README "Differential fuzzer"):
 *
 * | variable            | CI default (`npm test`)  | `npm run fuzz` default | meaning                                  |
 * | ------------------- | ------------------------ | ---------------------- | ---------------------------------------- |
 * | `FUZZ_RUNS`         | 2500                     | 50000                  | generated commands                       |
 * | `FUZZ_SEED`         | 12012                    | random (printed)       | fast-check seed                          |
 * | `FUZZ_PATH`         | -                        | -                      | replay one case (`7` or a shrunk `7:0:3`) |
 * | `FUZZ_COMMAND`      | -                        | -                      | run this one command instead             |
 * | `FUZZ_CONCURRENCY`  | 3                        | 3                      | sandboxes at once                        |
 * | `FUZZ_TIMEOUT_MS`   | 5000                     | 5000                   | per command                              |
 * | `FUZZ_SHRINK_MS`    | 20000                    | 60000                  | time to shrink the first failure         |
 * | `FUZZ_MAX_FAILURES` | 20                       | 1000                   | stop after this many failing cases       |
 * | `FUZZ_REPORT`       | -                        | -                      | write every failure to this file (JSONL) |
 * | `FUZZ_DIR`          | /dev/shm or /var/tmp     |                        | where the fixture copies live            |
 */
export interface FuzzConfig {
  readonly long: boolean
  readonly runs: number
  readonly seed: number
  readonly path: string | undefined
  readonly command: string | undefined
  readonly concurrency: number
  readonly timeoutMs: number
  readonly shrinkMs: number
  readonly maxFailures: number
  readonly report: string | undefined
}

function int(name: string, fallback: number, min: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: expected an integer >= ${min}`)
  return n
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): FuzzConfig {
  const long = env.FUZZ_LONG === '1'
  const seedRaw = env.FUZZ_SEED
  const seed =
    seedRaw !== undefined && seedRaw !== ''
      ? int('FUZZ_SEED', 0, -(2 ** 31))
      : long
        ? Math.floor(Math.random() * 2 ** 31)
        : 12012
  return {
    long,
    runs: int('FUZZ_RUNS', long ? 50_000 : 2500, 1),
    seed,
    path: env.FUZZ_PATH === '' ? undefined : env.FUZZ_PATH,
    command: env.FUZZ_COMMAND === '' ? undefined : env.FUZZ_COMMAND,
    concurrency: int('FUZZ_CONCURRENCY', 3, 1),
    timeoutMs: int('FUZZ_TIMEOUT_MS', 5000, 100),
    shrinkMs: int('FUZZ_SHRINK_MS', long ? 60_000 : 20_000, 0),
    maxFailures: int('FUZZ_MAX_FAILURES', long ? 1000 : 20, 1),
    report: env.FUZZ_REPORT === '' ? undefined : env.FUZZ_REPORT,
  }
}
