/** A table lookup that never reaches Object.prototype (`valueOf`, `constructor` are not programs). */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined
}
