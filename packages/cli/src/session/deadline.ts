// A bounded wait (every wait has a deadline): the promise's outcome, or a clear error once `ms`
// have passed. The work itself is not cancelled; the caller stops waiting and reports.
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError'
}

export function withDeadline<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DeadlineError(
            `${what} did not finish within ${ms / 1000} s; the machine may be overloaded or a part hangs (try again, or run with --no-code)`,
          ),
        ),
      ms,
    )
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}
