// The npm registry this project is developed against serves only the linux-amd64 build of
// @foundry-rs/anvil, so `npm install` here drops anvil's other platform packages from
// package-lock.json, and `npm ci` then refuses the lock as out of sync. This restores their entries
// (no tarball is needed for them on linux-x64: npm skips packages for another os/cpu). Run it after
// any `npm install` that rewrites the lock: `node scripts/maintenance/lockfile-anvil-platforms.mjs`.
import fs from 'node:fs';

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const anvil = lock.packages['node_modules/@foundry-rs/anvil'];
if (!anvil) throw new Error('@foundry-rs/anvil is not in package-lock.json');
const platforms = {
  'darwin-amd64': { os: 'darwin', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'linux-amd64': { os: 'linux', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64' },
  'win32-amd64': { os: 'win32', cpu: 'x64' },
};
let added = 0;
for (const [name, version] of Object.entries(anvil.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const platform = platforms[name.replace('@foundry-rs/anvil-', '')];
  if (!platform) throw new Error(`unknown anvil platform package ${name}`);
  lock.packages[key] = { version, cpu: [platform.cpu], dev: true, license: anvil.license, optional: true, os: [platform.os] };
  added++;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`lockfile: ${added} anvil platform entr${added === 1 ? 'y' : 'ies'} restored`);
