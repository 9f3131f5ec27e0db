import type { Language, Node } from 'web-tree-sitter'

/**
 * Cheap reads of web-tree-sitter nodes. Every getter of a web-tree-sitter `Node` copies the node
 * into WASM memory and calls into WASM (`type`, `isNamed`, `text`, `child(i)`, `fieldNameForChild`
 * each cost one round trip), so the walk reads each node's type id once and looks its name and
 * named-ness up in tables built once per language, and slices text from the source string.
 */
export interface Kind {
  readonly type: string
  readonly named: boolean
}

let source = ''

/** The string the tree being walked was parsed from (classification is synchronous: one at a time). */
export function setSource(text: string): void {
  source = text
}

/** The node's source text: a slice of the input (one WASM call for the end index). */
export function textOf(node: Node): string {
  return source.slice(node.startIndex, node.endIndex)
}

/** A slice of the input by node indices. */
export function sourceSlice(start: number, end: number): string {
  return source.slice(start, end)
}

const ERROR_KIND: Kind = { type: 'ERROR', named: true }

let tablesFor: Language | undefined
let kinds: Kind[] = []
let fieldIds: Map<string, number> = new Map()

function ensure(language: Language): void {
  if (tablesFor === language) return
  kinds = language.types.map((type, id) => ({ type: type ?? 'ERROR', named: language.nodeTypeIsNamed(id) }))
  fieldIds = new Map()
  language.fields.forEach((name, id) => {
    if (name !== null) fieldIds.set(name, id)
  })
  tablesFor = language
}

/** The node's type name and named-ness (one WASM call). */
export function kindOf(node: Node): Kind {
  ensure(node.tree.language)
  return kinds[node.typeId] ?? ERROR_KIND
}

/** The numeric id of a field name in the node's language (-1 when the grammar has no such field). */
function fieldId(node: Node, name: string): number {
  ensure(node.tree.language)
  return fieldIds.get(name) ?? -1
}

/** The node's children in one WASM call (web-tree-sitter caches the array on the node). */
export function childrenOf(node: Node): readonly Node[] {
  return node.children as Node[]
}

/**
 * The ids of a node's children that carry the field `name`, in one WASM call. Node ids are unique
 * within a tree, so membership in this set identifies the child without `fieldNameForChild(i)`.
 */
export function childIdsForField(node: Node, name: string): ReadonlySet<number> {
  const id = fieldId(node, name)
  if (id <= 0) return EMPTY
  const list = node.childrenForFieldId(id)
  if (list.length === 0) return EMPTY
  const ids = new Set<number>()
  for (const c of list) if (c !== null) ids.add(c.id)
  return ids
}

const EMPTY: ReadonlySet<number> = new Set()
