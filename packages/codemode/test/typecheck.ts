import ts from 'typescript'

/** Type-check `sdk.d.ts` + a program (as the body of an async function) with the real compiler. */
export function typecheck(sdk: string, program: string): string[] {
  const files = new Map([
    ['/sdk.d.ts', sdk],
    ['/main.ts', `export {}\nasync function main() {\n${program}\n}\nvoid main\n`],
  ])
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
    skipLibCheck: false,
  }
  const host = ts.createCompilerHost(options)
  const original = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, onError, create) => {
    const text = files.get(name)
    return text !== undefined
      ? ts.createSourceFile(name, text, version)
      : original(name, version, onError, create)
  }
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name)
  host.readFile = (name) => files.get(name) ?? ts.sys.readFile(name)
  const program_ = ts.createProgram(['/sdk.d.ts', '/main.ts'], options, host)
  return ts
    .getPreEmitDiagnostics(program_)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`)
}
