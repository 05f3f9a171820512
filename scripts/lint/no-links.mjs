// Lint: the repository tracks no symbolic link. A link to a machine's own folder (an installed
// tool, a cache) committed by `git add -A` is not ignored by a "dir/" pattern, and checking it out
// replaces that folder everywhere the commit goes: a fresh clone would then use, or lose, another
// checkout's installs. Prints each link and exits 1 when there is any.
import { execFileSync } from 'node:child_process';
import { dirname, join, normalize } from 'node:path';

const ROOT = process.argv[2] ?? normalize(join(dirname(new URL(import.meta.url).pathname), '..', '..'));
const links = execFileSync('git', ['ls-files', '-s', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })
  .split('\0')
  .filter((line) => line.startsWith('120000 '))
  .map((line) => line.slice(line.indexOf('\t') + 1));
for (const path of links) console.log(`${path}: a symbolic link is tracked; remove it from the index (git rm --cached) and ignore it`);
process.exit(links.length > 0 ? 1 : 0);
