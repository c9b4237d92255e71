import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, RENDER_ENV, VARIABLES_READ_ELSEWHERE } from '@/lib/config';

// Every environment variable the service reads is named in .env.example and in the README's configuration
// table. The reads are found the way the code makes them: the keys of lib/config.ts's schema, and every
// `process.env.X`, `process.env['X']` and `env.X` under lib/, app/, scripts/ and the root modules. A name built at
// run time (scripts/rails/index.ts reads RAILS_*_PORT through a variable) cannot be found this way; keep such
// reads rare and document them by hand.

const ROOT = path.resolve(__dirname, '../..');
const SOURCE_DIRS = ['lib', 'app', 'scripts'];
const ROOT_MODULES = ['proxy.ts', 'instrumentation.ts', 'next.config.ts'];
/** Read through a name built at run time, which the scan cannot see: the file that reads each. */
const READ_BY_BUILT_NAME: Record<string, string> = { RAILS_ANVIL_PORT: 'scripts/rails/index.ts', RAILS_FACILITATOR_PORT: 'scripts/rails/index.ts', RAILS_STRIPE_PORT: 'scripts/rails/index.ts' };
/** Read by our code but set by the platform, never by an operator. */
const SET_BY_THE_PLATFORM: Record<string, string> = { NEXT_RUNTIME: 'Next.js sets it in each runtime it loads a module in' };
/** Named only inside example code the docs page shows its readers (their shell's $BASE), never read by us. */
const IN_DOCS_EXAMPLES: Record<string, string> = { BASE: 'lib/docs/examples.ts', MPPX_PRIVATE_KEY: 'lib/docs/examples.ts' };

const READ_PATTERNS = [/process\.env\.([A-Z][A-Z0-9_]*)/g, /process\.env\[['"`]([A-Z][A-Z0-9_]*)['"`]\]/g, /\benv\.([A-Z][A-Z0-9_]*)/g];

function sourceFiles(): string[] {
  const files: string[] = ROOT_MODULES.map((f) => path.join(ROOT, f)).filter((f) => fs.existsSync(f));
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(?:ts|tsx|mts|mjs|js)$/.test(entry.name)) files.push(full);
    }
  };
  for (const dir of SOURCE_DIRS) walk(path.join(ROOT, dir));
  return files;
}

/** Variable → the files that read it. */
function variablesRead(): Map<string, string[]> {
  const read = new Map<string, string[]>();
  const add = (name: string, file: string) => read.set(name, [...new Set([...(read.get(name) ?? []), path.relative(ROOT, file)])]);
  for (const name of CONFIG_VARIABLES) add(name, path.join(ROOT, 'lib/config.ts'));
  for (const file of sourceFiles()) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of READ_PATTERNS) for (const [, name] of text.matchAll(pattern)) add(name, file);
  }
  for (const [name, file] of Object.entries(READ_BY_BUILT_NAME)) {
    // Still there: the file names the variable in a string.
    expect(fs.readFileSync(path.join(ROOT, file), 'utf8'), `${file} reads ${name}`).toContain(`'${name}'`);
    add(name, path.join(ROOT, file));
  }
  for (const name of Object.keys(SET_BY_THE_PLATFORM)) read.delete(name);
  for (const [name, file] of Object.entries(IN_DOCS_EXAMPLES)) {
    // Still only there: a read anywhere else must be documented like any other.
    expect(read.get(name), `${name} is read outside the docs examples`).toEqual([file]);
    read.delete(name);
  }
  return read;
}

/** Names in .env.example, set (`NAME=value`) or left commented (`# NAME=value`). */
function envExampleNames(): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  return new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name));
}

/** Names in the first column of the table under the README's "## Configuration" heading. */
function readmeTableNames(): Set<string> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  expect(start, 'README.md has a "## Configuration" section').toBeGreaterThan(-1);
  const section = readme.slice(start + 1).split(/\n## /)[0].slice(1);
  const names = new Set<string>();
  for (const [, firstCell] of section.matchAll(/^\|([^|\n]+)\|/gm)) for (const [, name] of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name);
  return names;
}

describe('every variable the service reads is documented', () => {
  const read = variablesRead();

  it('finds the configuration schema by scanning, the way lib/config.ts reads it', () => {
    const configText = fs.readFileSync(path.join(ROOT, 'lib/config.ts'), 'utf8');
    const schema = configText.slice(configText.indexOf('const EnvSchema = z.object({'), configText.indexOf('\n});', configText.indexOf('const EnvSchema')));
    const scanned = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map(([, name]) => name);
    // The renderer's settings are a group of their own, spread into the schema.
    expect(schema).toContain('...RENDER_ENV,');
    expect([...scanned, ...Object.keys(RENDER_ENV)].sort()).toEqual([...CONFIG_VARIABLES].sort());
    // A variable the config reads and one a script reads are both found.
    expect(read.get('CREDITS_KEY_SECRET')).toContain('lib/config.ts');
    expect(read.get('LOG_LEVEL')).toContain('lib/log.ts');
  });

  it('lists each of them in lib/config.ts, which the settings list of /docs/self-hosting is made from', () => {
    expect([...read.keys()].sort()).toEqual([...CONFIG_VARIABLES, ...Object.keys(VARIABLES_READ_ELSEWHERE)].sort());
  });

  it('names each of them in .env.example', () => {
    const documented = envExampleNames();
    const missing = [...read].filter(([name]) => !documented.has(name)).map(([name, files]) => `${name} (read in ${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it("names each of them in the README's configuration table", () => {
    const documented = readmeTableNames();
    const missing = [...read].filter(([name]) => !documented.has(name)).map(([name, files]) => `${name} (read in ${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('documents nothing that is not read', () => {
    const stale = [...new Set([...envExampleNames(), ...readmeTableNames()])].filter((name) => !read.has(name));
    expect(stale).toEqual([]);
  });
});
