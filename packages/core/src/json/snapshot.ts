// A value the runtime has already made into a deep-frozen, lossless JSON snapshot carries a
// private brand, so a later copy walk can share it instead of copying it again (a result's
// content logged in another event, a sub-call's context handed to its parent).
//
// The brand is a private class field, added through a base constructor that returns its
// argument: only this module can add or test it, a holder cannot forge it, and readers never see
// it (keys, JSON, structuredClone and proxies ignore private fields). A WeakSet would do the same
// at ~0.8 µs per entry in GC bookkeeping, measured; the field costs a hidden-class transition.
// It is added before the value is frozen, which stays valid if private fields on non-extensible
// objects are ever refused.

class Target {
  constructor(value: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the subclass's field lands on `value`
    return value
  }
}

class Brand extends Target {
  readonly #snapshot = true

  static has(value: object): boolean {
    return #snapshot in value
  }

  static add(value: object): void {
    new Brand(value)
  }
}

/**
 * Brand `value` as a snapshot. Only for a value this package built or copied, about to be deep
 * frozen, made of lossless JSON throughout. Idempotent.
 */
export function markSnapshot<T extends object>(value: T): T {
  if (!Brand.has(value)) Brand.add(value)
  return value
}

/** Whether `value` is a snapshot the runtime made (deep-frozen lossless JSON). */
export function isSnapshot(value: object): boolean {
  return Brand.has(value)
}
