// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
import { PAYLOAD } from './markers.js'

/**
 * Fixed cases run before the generated ones on every run: the examples of issue 12's classes and
 * their close variants, and one example of each class this fuzzer found; each one a command that
 * writes, runs a program or reaches the network when bash runs it. Whatever the classifier says, running them is the proof: a read-only verdict on
 * any of them fails the test.
 */
export const ISSUE_12_CORPUS: readonly string[] = [
  // 1. Heredoc bodies.
  'cat <<EOF\n`touch PWN`\nEOF',
  `cat <<EOF\n $(${PAYLOAD} after-blank)\nEOF`,
  `cat <<EOF\n$\\\n(${PAYLOAD} continuation)\nEOF`,
  `cat <<EOF\n\${x-'$(${PAYLOAD} single-in-brace)'}\nEOF`,
  `cat <<EOF\n"\${x-'\`${PAYLOAD}\`'}"\nEOF`,
  `echo "\${x-'$(${PAYLOAD} double-quoted-brace)'}"`,
  `cat <<-EOF\n\t$(${PAYLOAD} dash)\n\tEOF`,
  `cat <<EOF | wc -l\n$(${PAYLOAD} pipeline)\nEOF`,
  `cat <<A <<B\nx\nA\n$(${PAYLOAD} second)\nB`,
  `cat <<<"$(${PAYLOAD} herestring)"`,
  // 2. Option-parsing semantics.
  `git config core.fsmonitor '${PAYLOAD}' --get`,
  `git config core.pager ${PAYLOAD} --get`,
  "sed -n ':a;w PWN' notes.txt",
  "sed -n 'v;w PWN' notes.txt",
  "sed 's/a/b/w PWN' notes.txt",
  'tee -- -x',
  'git branch --abbrev NAME',
  'tree -R -L 1 -H .',
  'git config --file X a.b c',
  'sort notes.txt -o PWN',
  'sort -ro PWN notes.txt',
  'uniq notes.txt PWN',
  'tree -o PWN',
  'find . -fprint PWN',
  'date -s 2020-01-01',
  'hostname pwned-host',
  'flock /tmp/lock true',
  // 3. Programs that run configured programs.
  'git log --show-signature -1',
  "git log --format='%G?' -1",
  'git show --show-signature',
  'git tag -v v3',
  'git verify-commit HEAD',
  `git grep -O${PAYLOAD} alpha`,
  `rg --pre ${PAYLOAD} alpha`,
  `sort --compress-program=${PAYLOAD} notes.txt`,
  `tar -tf archive.tar --checkpoint=1 --checkpoint-action=exec=${PAYLOAD}`,
  `tar -tf archive.tar --use-compress-program=${PAYLOAD}`,
  // 5. Other spellings and wrappers.
  `sh -c '${PAYLOAD} sh'`,
  `eval '${PAYLOAD} eval'`,
  'find . -exec touch {} \\;',
  `env -S '${PAYLOAD} env-S'`,
  `flock -c '${PAYLOAD} flock' /tmp/lock`,
  `xargs -I{} ${PAYLOAD} {} < notes.txt`,
  `busybox sh -c '${PAYLOAD} busybox'`,
  `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=${PAYLOAD} git status`,
  `git -c alias.x='!${PAYLOAD}' x`,
  'git boom',
  // Found by this fuzzer (one example per class; /work/wt/fuzz-findings.md has more).
  `echo "\${x-'$(${PAYLOAD} quotes-in-brace)'}"`,
  `ls "\${x:-\`${PAYLOAD} backquote-in-brace\`}"`,
  'tail -n 1 notes.txt; ls\\\nblk -f',
  'uniq {notes.txt,PWN}',
  'uniq -c notes.txt{,.out}',
  'time -p cd vendor/evil && command git status',
  'git archive -o x HEAD',
  'nice git archive --output=x HEAD',
  "xz -t < $'/dev/tcp/127.0.0.1/9'",
  "ls < $'\\x2f\\x64\\x65\\x76\\x2f\\x75\\x64\\x70\\x2f\\x31\\x32\\x37\\x2e\\x30\\x2e\\x30\\x2e\\x31\\x2f\\x35\\x33'",
  'hostname -f',
  'hostname -i',
  'java -version',
  `sed 'l\n:a;w .git/hooks/pre-commit'`,
  // Network.
  'cat < /dev/tcp/127.0.0.1/80',
  'echo x > /dev/udp/127.0.0.1/53',
  'getent hosts example.com',
  'npm ls',
  'npm view left-pad',
  'git ls-remote origin',
  `curl http://example.invalid/`,
]
