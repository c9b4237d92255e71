// A second build of the service at another git revision, for side-by-side benches: the revision's files
// exported into a folder of its own (git archive, so the repository's worktree list is left alone), this
// checkout's node_modules hard-linked in (Turbopack refuses a node_modules symlinked from outside its root),
// and `next build` run there. The folder is kept under the OS temp dir by commit, so a second run reuses it.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_DIST_DIR } from '../support/server';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The root of a built copy of the service at `revision` (anything `git rev-parse` reads), built on first use.
 * @example const root = buildRevision('9a85e89'); await startServer(env, { root });
 */
export function buildRevision(revision: string): string {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const root = path.join(os.tmpdir(), `pac-bench-rev-${commit}`);
  const marker = path.join(root, TEST_DIST_DIR, 'PAC_BENCH_BUILT');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  console.log(`[bench] building ${revision} (${commit.slice(0, 12)}) in ${root}`);
  const archive = spawnSync('git', ['archive', '--format=tar', commit], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`);
  execFileSync('tar', ['-x', '-C', root], { input: archive.stdout });
  execFileSync('cp', ['-al', path.join(ROOT, 'node_modules'), path.join(root, 'node_modules')]);
  const built = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: root,
    env: { ...process.env, NEXT_DIST_DIR: TEST_DIST_DIR, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`next build of ${commit} failed:\n${built.stdout}\n${built.stderr}`);
  fs.writeFileSync(marker, commit);
  return root;
}

/**
 * Mints a prepaid key with `calls` calls with the code of the build at `root` (its store's format is its own), on
 * the SQLite store in `dataDir` or the Redis at `redisUrl`.
 * @example const key = mintKey(root, { dataDir }, TEST_SECRET);
 */
export function mintKey(root: string, at: { dataDir: string } | { redisUrl: string }, secret: string, calls = 10_000_000): string {
  const script = path.join(__dirname, 'mint-key.ts');
  const target = 'dataDir' in at ? ['sqlite', at.dataDir] : ['redis', at.redisUrl];
  // Run from `root`, so its tsconfig resolves the `@/` imports to that build's own code.
  return execFileSync(process.execPath, ['--import', 'tsx', script, root, ...target, secret, String(calls)], { cwd: root, encoding: 'utf8' }).trim();
}

/**
 * A token naming this checkout's code as it is now (HEAD, its uncommitted changes and new files), so the test build
 * that `startServer` reuses is rebuilt once the code changed rather than benched stale.
 * @example process.env.PAC_BUILD_TOKEN ??= checkoutToken();
 */
export function checkoutToken(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  const hash = createHash('sha256');
  hash.update(git('rev-parse', 'HEAD'));
  hash.update(git('diff', 'HEAD'));
  for (const file of git('ls-files', '--others', '--exclude-standard', '-z').split('\0').filter(Boolean)) hash.update(file).update(fs.readFileSync(path.join(ROOT, file)));
  return `checkout-${hash.digest('hex')}`;
}
