import { blankSourceFile } from 'ts-blank-space'
import ts from 'typescript'

/**
 * The model's program is the body of an async function. We wrap it BEFORE stripping so that
 * `await` and `return` parse as they will run, and so that TypeScript's parser sees exactly the
 * text QuickJS will compile. The prefix sits on the first line (no newline), so line numbers in
 * errors and stack traces are the model's own line numbers.
 */
export const PROGRAM_PREFIX = '(async () => {'
export const PROGRAM_SUFFIX = '\n})'
export const PROGRAM_FILENAME = 'program.ts'

/**
 * QuickJS's parser and a few of its natives recurse on the host's native stack without a usable
 * depth check (measured: a 400-deep `[[[...]]]` crashes the Node process with RangeError from
 * inside wasm). The TypeScript parser runs first on the host, so we bound the syntax tree's depth
 * here and never hand QuickJS a program it could choke on.
 */
export const MAX_SYNTAX_DEPTH = 150

export interface StripIssue {
  /** 1-based line in the model's program */
  readonly line: number
  /** 1-based column in the model's program */
  readonly column: number
  readonly message: string
}

export type StripResult =
  | { readonly ok: true /** a JavaScript function expression: `(async () => {...})` */; readonly js: string }
  | { readonly ok: false; readonly issues: readonly StripIssue[] }

const NOT_ERASABLE = {
  enum: "`enum` is not erasable TypeScript. Use a union of string literals (type Color = 'red' | 'blue') or a plain object with `as const`.",
  namespace:
    '`namespace`/`module` with values is not erasable TypeScript. Use a plain object or plain functions.',
  parameterProperty:
    'Parameter properties (constructor(private x: T)) are not erasable TypeScript. Declare the field in the class body and assign it in the constructor.',
  importEquals:
    '`import x = require(...)` is not available: run_code has no modules. Call tools through `tools.<name>(args)`.',
  exportAssignment: '`export =` is not available: the program is a function body, not a module.',
  angleAssertion: 'Angle-bracket type assertions (<T>value) are not supported. Write `value as T`.',
  ambiguousAssertion:
    'Erasing this `as`/`satisfies` would change how `??`, `&&` and `||` group. Put parentheses around the assertion.',
  other:
    'This TypeScript syntax cannot be erased to JavaScript. Rewrite it with plain JavaScript plus type annotations.',
} as const satisfies Record<string, string>

function notErasableMessage(node: ts.Node): string {
  switch (node.kind) {
    case ts.SyntaxKind.EnumDeclaration:
      return NOT_ERASABLE.enum
    case ts.SyntaxKind.ModuleDeclaration:
      return NOT_ERASABLE.namespace
    case ts.SyntaxKind.PublicKeyword:
    case ts.SyntaxKind.PrivateKeyword:
    case ts.SyntaxKind.ProtectedKeyword:
    case ts.SyntaxKind.ReadonlyKeyword:
    case ts.SyntaxKind.OverrideKeyword:
      return NOT_ERASABLE.parameterProperty
    case ts.SyntaxKind.ImportEqualsDeclaration:
      return NOT_ERASABLE.importEquals
    case ts.SyntaxKind.ExportAssignment:
      return NOT_ERASABLE.exportAssignment
    case ts.SyntaxKind.TypeAssertionExpression:
      return NOT_ERASABLE.angleAssertion
    case ts.SyntaxKind.AsExpression:
    case ts.SyntaxKind.SatisfiesExpression:
      return NOT_ERASABLE.ambiguousAssertion
    default:
      return NOT_ERASABLE.other
  }
}

/** Syntax that parses inside a function body but can never run in run_code; we say why up front. */
function unsupportedMessage(node: ts.Node): string | undefined {
  switch (node.kind) {
    case ts.SyntaxKind.Decorator:
      return 'Decorators are not supported in run_code. Call the function you would decorate with explicitly.'
    case ts.SyntaxKind.ImportDeclaration:
    case ts.SyntaxKind.ExportDeclaration:
      return '`import`/`export` are not available: the program is the body of an async function and there are no modules. Tools are on the global `tools` object.'
    default:
      return undefined
  }
}

function positionOf(sf: ts.SourceFile, pos: number): { line: number; column: number } {
  const lc = sf.getLineAndCharacterOfPosition(Math.max(PROGRAM_PREFIX.length, Math.min(pos, sf.text.length)))
  const column = lc.line === 0 ? lc.character - PROGRAM_PREFIX.length : lc.character
  return { line: lc.line + 1, column: column + 1 }
}

function issueAt(sf: ts.SourceFile, node: ts.Node, message: string): StripIssue {
  return { ...positionOf(sf, node.getStart(sf)), message }
}

/**
 * Erasable TypeScript -> JavaScript (ts-blank-space: types become spaces, positions are kept).
 * Parse errors, non-erasable syntax, modules, decorators and absurd nesting are reported with
 * line:column; nothing that failed here is ever run.
 */
export function stripTypes(code: string): StripResult {
  const wrapped = PROGRAM_PREFIX + code + PROGRAM_SUFFIX
  let sf: ts.SourceFile
  try {
    sf = ts.createSourceFile(PROGRAM_FILENAME, wrapped, ts.ScriptTarget.ESNext, false, ts.ScriptKind.TS)
  } catch (error) {
    // The TypeScript parser recurses on the host stack; absurd nesting can overflow it.
    return {
      ok: false,
      issues: [
        {
          line: 1,
          column: 1,
          message: `The program could not be parsed (${String(error)}). Nest less deeply.`,
        },
      ],
    }
  }
  const parseDiagnostics = (sf as unknown as { parseDiagnostics?: readonly ts.DiagnosticWithLocation[] })
    .parseDiagnostics
  if (parseDiagnostics && parseDiagnostics.length > 0) {
    return {
      ok: false,
      issues: parseDiagnostics.slice(0, 5).map((d) => ({
        ...positionOf(sf, d.start),
        message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      })),
    }
  }
  // The wrapper must still be one function expression: a stray `})` would close it early.
  const only = sf.statements.length === 1 ? sf.statements[0] : undefined
  const wrapper =
    only && ts.isExpressionStatement(only) && ts.isParenthesizedExpression(only.expression)
      ? only.expression.expression
      : undefined
  if (!wrapper || !ts.isArrowFunction(wrapper) || wrapper.end !== wrapped.length - 1) {
    return {
      ok: false,
      issues: [
        {
          line: 1,
          column: 1,
          message:
            'The program closes its own function body early (an unbalanced `}` or `)`). Balance the brackets.',
        },
      ],
    }
  }
  const issues: StripIssue[] = []
  let tooDeep: ts.Node | undefined
  const walk = (node: ts.Node, depth: number): void => {
    if (tooDeep) return
    if (depth > MAX_SYNTAX_DEPTH) {
      tooDeep = node
      return
    }
    const unsupported = unsupportedMessage(node)
    if (unsupported) issues.push(issueAt(sf, node, unsupported))
    ts.forEachChild(node, (child) => walk(child, depth + 1))
  }
  walk(wrapper.body, 0)
  if (tooDeep) {
    return {
      ok: false,
      issues: [
        issueAt(
          sf,
          tooDeep,
          `The program nests expressions or statements more than ${MAX_SYNTAX_DEPTH} levels deep. Flatten it (use intermediate variables or loops).`,
        ),
      ],
    }
  }
  const js = blankSourceFile(sf, (node) => issues.push(issueAt(sf, node, notErasableMessage(node))))
  if (issues.length > 0) {
    issues.sort((a, b) => a.line - b.line || a.column - b.column)
    return { ok: false, issues }
  }
  return { ok: true, js }
}

/**
 * A program with the syntax model programs use most (types, interfaces, generics, `as`, optional
 * chaining, templates, destructuring, loops, try/catch, awaited calls). TypeScript's parser
 * compiles its functions on first use: stripping `return 0` once left the first real program at
 * ~30 ms on the loaded machine (the next ones ~2 ms); stripping this one first covers most of it.
 */
const WARM_PROGRAM = `interface Hit { path: string; line?: number }
type Found = Record<string, Hit[]>
const found: Found = {}
const hits = (await tools.grep({ pattern: 'x', limit: 10 })) as { matches: Hit[] }
for (const { path, line } of hits.matches ?? []) {
  const key = path.split('/').at(-1) ?? path
  ;(found[key] ??= []).push({ path, line: line! + 1 })
}
const sizes = Object.entries(found).map(([k, v]: [string, Hit[]]) => \`\${k}: \${v.length}\`)
function pick<T extends object>(xs: T[], n = 3): T[] { return xs.slice(0, n) }
try { console.log(pick(sizes).join('\\n'), hits?.matches?.[0]?.line) } catch (e: unknown) { console.error(String(e)) }
return { count: sizes.length, first: sizes[0] ?? null, ok: sizes.length > 0 && !false }`

/** Strip WARM_PROGRAM once, so that the first model program does not pay for compiling the parser. */
export function warmStripper(): void {
  stripTypes(WARM_PROGRAM)
}

/** `program.ts:3:5: message` lines, one per issue. */
export function formatStripIssues(issues: readonly StripIssue[]): string {
  return issues.map((i) => `${PROGRAM_FILENAME}:${i.line}:${i.column}: ${i.message}`).join('\n')
}
