// Exit codes scripts can rely on (README "Exit codes"); tests assert each of them.
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** The task failed: the agent stopped on an error, max turns, a refusal, or a tool run broke. */
  failed: 1,
  /** The command line is wrong (unknown option, missing argument, bad value). */
  usage: 2,
  /** The configuration is incomplete or unusable (no model endpoint, missing key, unreadable log). */
  config: 3,
  /** Interrupted by SIGINT (128 + 2, the shell convention). */
  interrupted: 130,
} as const satisfies Record<string, number>

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]
