// What `toolgate demo` does, in order: the one description its --help, the README and the CLI
// README show (a test checks that both READMEs list these lines verbatim, and that the demo's own
// cards follow them).
export const DEMO_STEPS = [
  'reads package.json and README.md (two reads in one parallel batch)',
  'edits the README (a diff card)',
  'runs the project linter with bash; the command is not read-only, so it asks for approval',
  'reviews the sources: three reads and a grep in one parallel batch',
  'tries to write .git/hooks/pre-commit, which policy refuses (git hooks are a protected path)',
  'counts the lines of the sources with one run_code program (Code Mode; --no-code leaves it out)',
  'answers with what really happened and prints a summary with the path of the session log',
] as const
