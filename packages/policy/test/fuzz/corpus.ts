// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, not templates
import { PAYLOAD } from './markers.js'

/**
 * Fixed cases run before the generated ones on every run: the examples of issue 12's classes and
 * their close variants, each one a command that writes, runs a program or reaches the network when
 * bash runs it. Whatever the classifier says, running them is the proof: a read-only verdict on
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
  // Network.
  'cat < /dev/tcp/127.0.0.1/80',
  'echo x > /dev/udp/127.0.0.1/53',
  'getent hosts example.com',
  'npm ls',
  'npm view left-pad',
  'git ls-remote origin',
  `curl http://example.invalid/`,
]
