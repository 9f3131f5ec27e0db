// The middleware chain behind every waterfall: each handler gets `next` to delegate to the rest
// of the chain; the terminal decides when all handlers delegated. Synchronous handlers stay
// synchronous (no promise on the fast path). `next` may be called once per handler invocation,
// except where `reentrant` chains allow re-dispatch (retry wrappers around execution).

type Next<R, O> = (override?: O) => R | Promise<R>
export type Handler<C, R, O> = (ctx: C, next: Next<R, O>) => R | Promise<R>

export function compose<C, R, O = never>(
  handlers: readonly Handler<C, R, O>[],
  terminal: (ctx: C) => R | Promise<R>,
  options?: { update?: (ctx: C, override: O) => C; reentrant?: boolean },
): (ctx: C) => R | Promise<R> {
  if (handlers.length === 0) return terminal
  const update = options?.update
  const reentrant = options?.reentrant === true
  return (root: C) => {
    const dispatch = (index: number, ctx: C): R | Promise<R> => {
      const handler = handlers[index]
      if (!handler) return terminal(ctx)
      let called = false
      return handler(ctx, (override?: O) => {
        if (called && !reentrant) throw new Error('next() called more than once by the same listener')
        called = true
        return dispatch(index + 1, override !== undefined && update ? update(ctx, override) : ctx)
      })
    }
    return dispatch(0, root)
  }
}

/**
 * Memoize a chain builder per listener list. Registry views (and so their lists) are rebuilt only
 * when a registration changes, so each list is composed once, not per call.
 */
export function chainCache<L, C, R>(
  build: (listeners: readonly L[]) => (ctx: C) => R | Promise<R>,
): (listeners: readonly L[]) => (ctx: C) => R | Promise<R> {
  const chains = new WeakMap<readonly L[], (ctx: C) => R | Promise<R>>()
  return (listeners) => {
    let chain = chains.get(listeners)
    if (!chain) {
      chain = build(listeners)
      chains.set(listeners, chain)
    }
    return chain
  }
}
