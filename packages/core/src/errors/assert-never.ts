/**
 * The `default` of an exhaustive `switch` over a discriminated union: the call only type-checks
 * when every member has its own case, so adding a member without handling it is a compile error,
 * not a silent fall-through. Reaching it at run time means a value came from outside the types
 * (a plugin written in JavaScript, a cast): it throws rather than guess.
 */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${describeUnexpected(value)}`)
}

function describeUnexpected(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
