// Every command the /docs pages and the README show, run as written against the service (`next start` on a
// production build) on the local rails that `npm run rails` starts: each command's output is compared with what
// the docs say it answers (status line, headers, JSON members, exit code). A command that cannot run here is
// listed below by its exact text with the reason; a new command that is neither run nor listed fails the test.
// The same pages are held to 300 KB of HTML each, and every block of code they show is a command run here or
// JSON data.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { marked } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docsExamples } from '@/lib/docs/examples';
import { DOCS_PAGES } from '@/lib/docs/pages';
import { endpointDocs } from '@/lib/docs/reference';
import { PROBLEMS } from '@/lib/problems';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';

const ROOT = path.resolve(__dirname, '../..');
const MAX_PAGE_BYTES = 300 * 1024;

/** What a command's output must show. */
interface Shape {
  /** Exit code (default 0). */
  exit?: number;
  /** The status of a `curl -i` answer. */
  status?: number;
  /** Headers of a `curl -i` answer, by lower-case name. */
  headers?: Record<string, RegExp>;
  /** Members the JSON body (or, for a `curl -i` answer, the body after the headers) has. */
  json?: string[];
  /** Values the JSON body has at these dotted paths. */
  values?: Record<string, unknown>;
  /** The whole output (stdout), trimmed. */
  stdout?: RegExp;
}

/** The docs' commands that cannot run here, by exact text, with why. */
const NOT_RUN: Record<string, string> = {
  [docsExamples('').mcpAdd]: 'needs the Claude Code CLI, which is not part of this project; the address and header it names are the ones the MCP example above calls',
  [docsExamples('').develop]:
    'reinstalls the packages (npm ci) and serves until stopped; tests/e2e/dev-start.test.ts starts `npm run dev` on an empty store',
  [docsExamples('').produce]:
    'reinstalls, builds and serves on a public origin until stopped; the service this test runs is that build, started the same way (tests/support/server.ts)',
  'npm ci && npm run dev      # installs, then serves http://localhost:3000 on the embedded defaults':
    'reinstalls the packages and serves until stopped; tests/e2e/dev-start.test.ts starts `npm run dev` on an empty store',
  'npm test                   # typecheck, lint and every test': 'runs every suite, this one included; CI runs it (.ci/run)',
  'claude mcp add --transport http paid-agent-checks http://localhost:3000/api/mcp --header "Authorization: Bearer $KEY"':
    'needs the Claude Code CLI, which is not part of this project; the MCP endpoint and header it names are run from /docs/mcp',
};

/** The shapes of the docs pages' examples, in the order of their commands (`export` lines set the shell, no output). */
function docsShapes(): Record<string, Shape[]> {
  const paid = { exit: 0, json: ['service', 'idempotencyKey', 'paymentIntent'] };
  return {
    setBase: [],
    unpaid: [{ status: 402, headers: { 'content-type': /^application\/problem\+json/, 'www-authenticate': /^Payment /, 'payment-required': /^ey/ }, json: ['type', 'title', 'status', 'detail'], values: { status: 402 } }],
    prepaid: [{ json: ['callsLeft'], values: { callsLeft: 25 } }, { json: ['service', 'idempotencyKey', 'creditsUsage'], values: { idempotencyKey: 'order-0001' } }],
    rails: [], // run once for the whole file (beforeAll): its output is the environment every other command runs in
    mppCard: [{ ...paid, values: { paymentIntent: expect.stringMatching(/^pi_/) } }],
    mppEvm: [{ ...paid, values: { paymentIntent: expect.stringMatching(/^0x[0-9a-f]{64}$/) } }],
    x402Cli: [{ ...paid, values: { paymentIntent: expect.stringMatching(/^0x[0-9a-f]{64}$/) } }],
    x402: [{ stdout: /^200 true 0x[0-9a-f]{64}$/ }],
    mcp: [{ json: ['jsonrpc', 'id', 'result'], values: { 'result.isError': undefined, 'result._meta.creditsRemaining': 23 } }],
    mcpX402: [{ stdout: /^true 0x[0-9a-f]{64}$/ }],
  };
}

/** The README's commands, by exact text, in the order they run. */
const README_SHAPES: Record<string, Shape> = {
  'curl -s http://localhost:3000/api/agent/credits': { json: ['plans'] },
  'curl -s http://localhost:3000/api/agent/credits -H "Authorization: Bearer $KEY"': { json: ['callsLeft'] },
  'curl -s http://localhost:3000/api/agent/readiness': { json: ['service', 'price', 'rubric'] },
  'curl -s "http://localhost:3000/api/reports?limit=20" -H "Authorization: Bearer $KEY"': { json: ['reports'] },
  'curl -s http://localhost:3000/api/reports/rep_… -H "Authorization: Bearer $KEY"      # 404 with any other key': { json: ['service', 'idempotencyKey', 'assessment'], values: { idempotencyKey: 'walkthrough-0001' } },
  'curl -s -i http://localhost:3000/api/agent/readiness -H "Content-Type: application/json" -d \'{}\'   # 400: every bad field listed': {
    status: 400,
    headers: { 'content-type': /^application\/problem\+json/ },
    json: ['type', 'title', 'status', 'detail', 'errors'],
  },
  'npm run check -- example.com/pricing --pretty   # the AI Visibility Check run here, no key (--api: as a CI gate)': { stdout: /^AI Visibility Check of https:\/\/example\.com\/pricing\nScore: \d+\/100/m },
};

// ---------- running a command as a reader's shell would ----------

/** A block of shell split into its commands: continued lines joined, quoted newlines kept, comment lines dropped. */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  let single = false;
  let double = false;
  for (const line of block.split('\n')) {
    if (!current && !single && !double && /^\s*(#|$)/.test(line)) continue;
    current += (current ? '\n' : '') + line;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === '\\' && !single) i++;
      else if (c === "'" && !double) single = !single;
      else if (c === '"' && !single) double = !double;
      else if (c === '#' && !single && !double && (i === 0 || /\s/.test(line[i - 1]))) break;
    }
    if (!single && !double && !line.endsWith('\\')) {
      commands.push(current);
      current = '';
    }
  }
  expect(current, `an unterminated command in:\n${block}`).toBe('');
  return commands;
}

interface Ran {
  exit: number;
  stdout: string;
  stderr: string;
}

let shellEnv: Record<string, string>;
/** `export NAME=value` lines run so far: every later command of the same page runs after them. */
let exports: string[] = [];

function bash(command: string, timeoutMs = 120_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', [...exports, command].join('\n')], { cwd: ROOT, env: shellEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exit: code ?? -1, stdout, stderr });
    });
  });
}

const at = (value: unknown, dotted: string) => dotted.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

/** Runs one command and holds its output to `shape`; answers the parsed body and headers for later commands. */
async function runAs(command: string, shape: Shape): Promise<{ body: unknown; headers: Record<string, string> }> {
  if (/^export \w+=/.test(command)) {
    exports.push(command);
    const ran = await bash('true');
    expect(ran.exit, `${command}\n${ran.stderr}`).toBe(0);
    return { body: undefined, headers: {} };
  }
  const ran = await bash(command);
  const context = `${command}\n--- stdout\n${ran.stdout.slice(0, 2000)}\n--- stderr\n${ran.stderr.slice(0, 2000)}`;
  expect(ran.exit, context).toBe(shape.exit ?? 0);
  let text = ran.stdout;
  const headers: Record<string, string> = {};
  if (shape.status !== undefined) {
    const [head, ...rest] = text.split(/\r?\n\r?\n/);
    text = rest.join('\n\n');
    const [statusLine, ...lines] = head.split(/\r?\n/);
    expect(statusLine, context).toMatch(new RegExp(`^HTTP/[\\d.]+ ${shape.status}\\b`));
    for (const line of lines) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    for (const [name, pattern] of Object.entries(shape.headers ?? {})) expect(headers[name], `${name} of ${context}`).toMatch(pattern);
  }
  if (shape.stdout) expect(ran.stdout.trim(), context).toMatch(shape.stdout);
  let body: unknown;
  if (shape.json || shape.values) {
    body = JSON.parse(text);
    for (const member of shape.json ?? []) expect(body, context).toHaveProperty([member]);
    for (const [dotted, value] of Object.entries(shape.values ?? {})) expect(at(body, dotted), `${dotted} of ${context}`).toEqual(value);
  }
  return { body, headers };
}

// ---------- the service on `npm run rails` ----------

let rails: ChildProcess;
let server: RunningServer;
let site: FixtureSite;
let home: string;
/** Values that stand for the reader's own: a key, a wallet, a report id. */
const placeholders: Record<string, string> = {};

/** Starts `npm run rails` as the payments page shows it; answers the variables it prints, service's and client's apart. */
async function startRailsAsDocumented(command: string): Promise<{ service: Record<string, string>; client: Record<string, string> }> {
  rails = spawn('bash', ['-c', command], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  rails.stdout!.on('data', (d) => (stdout += d));
  rails.stderr!.on('data', (d) => (stderr += d));
  const deadline = Date.now() + 120_000;
  while (!/Local rails up/.test(stderr)) {
    if (rails.exitCode !== null || Date.now() > deadline) throw new Error(`npm run rails did not come up:\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const [servicePart, clientPart] = stdout.split('# Paying clients');
  const vars = (text: string) => Object.fromEntries([...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, k, v]) => [k, v]));
  return { service: vars(servicePart), client: vars(clientPart ?? '') };
}

beforeAll(async () => {
  const printed = await startRailsAsDocumented(commandsOf(docsExamples('').rails)[0]);
  // The payments page names these; the CLI and the snippets read them.
  for (const name of ['MPPX_PRIVATE_KEY', 'MPPX_RPC_URL', 'MPPX_STRIPE_SECRET_KEY', 'MPPX_STRIPE_SPT_URL']) expect(printed.client[name], name).toBeTruthy();
  site = await startFixtureSite({
    '/pricing': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><html lang="en"><head><title>Pricing</title><meta name="description" content="Plans and prices."></head><body><main><h1>Pricing</h1><p>Three plans, paid monthly or yearly, each with every feature.</p></main></body></html>' },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
  });
  server = await startServer({ ...printed.service, RATE_LIMIT_PER_IP: '100000', RATE_LIMIT_PER_KEY: '100000' });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-docs-home-'));
  // A reader's shell: the variables the rails printed exported (as the docs say), the store's settings for the keys
  // and ledger tools, and nothing of this test run's own environment but PATH.
  shellEnv = {
    PATH: process.env.PATH!,
    HOME: home,
    XDG_CONFIG_HOME: home,
    NO_COLOR: '1',
    ...printed.service,
    ...printed.client,
    DATA_DIR: server.dataDir,
    CREDITS_KEY_SECRET: TEST_SECRET,
    CHECK_HOST_MAP: site.hostMap(['example.com']),
    RENDERER: 'off',
  };
  placeholders.wallet = printed.client.MPPX_PRIVATE_KEY;
}, 400_000);

afterAll(async () => {
  await server?.stop();
  await site?.close();
  if (rails?.pid && rails.exitCode === null) {
    const exited = new Promise((r) => rails.once('exit', r));
    process.kill(-rails.pid, 'SIGTERM');
    await exited;
  }
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** A new key, made with the tool the docs name for it. */
async function newKey(): Promise<string> {
  const ran = await bash('npm run keys -- create --plan bundle-25');
  expect(ran.exit, ran.stderr).toBe(0);
  return ran.stdout.match(/pac_live_[0-9A-Za-z]{40}/)![0];
}

describe('the /docs pages', () => {
  it('run every example as written, and answer what the pages say', async () => {
    exports = [];
    const examples = docsExamples(server.url);
    const shapes = docsShapes();
    const key = await newKey();
    const ran: string[] = [];
    for (const [name, value] of Object.entries(examples)) {
      if (typeof value !== 'string') continue;
      if (NOT_RUN[value]) continue;
      const expected = shapes[name];
      expect(expected, `docs example "${name}" is neither run here nor listed in NOT_RUN:\n${value}`).toBeDefined();
      if (name === 'rails') continue;
      const commands = commandsOf(value.replace('pac_live_…', key).replace('MPPX_PRIVATE_KEY=0x…', `MPPX_PRIVATE_KEY=${placeholders.wallet}`));
      const run = commands.filter((c) => !/^export /.test(c));
      expect(run.length, `the shapes of "${name}"`).toBe(expected.length);
      let i = 0;
      for (const command of commands) await runAs(command, /^export /.test(command) ? {} : expected[i++]);
      ran.push(name);
    }
    expect(ran).toEqual(['setBase', 'prepaid', 'unpaid', 'mppCard', 'mppEvm', 'x402Cli', 'x402', 'mcp', 'mcpX402']);
    expect(Object.keys(shapes).filter((name) => !(name in examples))).toEqual([]);
  }, 600_000);

  it('run every keys and ledger tool the self-hosting page lists', async () => {
    exports = [];
    const key = await newKey();
    const paid = await fetch(`${server.url}${docsExamples(server.url).check.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(docsExamples(server.url).check.example),
    });
    expect(paid.status).toBe(200);
    const { creditsUsage } = (await paid.json()) as { creditsUsage: string };
    let current = key;
    const shapes: Record<string, Shape> = {
      'npm run keys -- create --plan bundle-25': { stdout: /pac_live_[0-9A-Za-z]{40}/ },
      'npm run keys -- show <key>': { stdout: /"callsLeft": 24/ },
      'npm run keys -- usage <key> [--csv]': { stdout: new RegExp(creditsUsage) },
      'npm run keys -- refund <creditsUsage>': { stdout: new RegExp(creditsUsage) },
      'npm run keys -- rotate <key>': { stdout: /pac_live_[0-9A-Za-z]{40}/ },
      'npm run keys -- revoke <key>': {},
      'npm run ledger -- audit [--keys]': {},
      'npm run ledger -- settlements': {},
      'npm run ledger -- reconcile': {},
    };
    for (const [command] of docsExamples(server.url).tools) {
      expect(shapes[command], `the tool "${command}" is not run here`).toBeDefined();
      const ran = await bash(command.replace('<key>', current).replace('<creditsUsage>', creditsUsage).replace(/\[(--\w+)\]/, '$1'));
      const context = `${command}\n${ran.stdout}\n${ran.stderr}`;
      expect(ran.exit, context).toBe(0);
      if (shapes[command].stdout) expect(ran.stdout, context).toMatch(shapes[command].stdout!);
      // npm echoes the command (with the old key) before the tool prints the new one.
      if (command.includes('rotate')) current = [...ran.stdout.matchAll(/pac_live_[0-9A-Za-z]{40}/g)].at(-1)![0];
    }
    // The revoked key is refused; the refund gave its call back before the key was rotated.
    const refused = await fetch(`${server.url}/api/agent/credits`, { headers: { authorization: `Bearer ${current}` } });
    expect(refused.status).toBe(401);
  }, 400_000);

  it('show only commands run above, or JSON data, in their code blocks', async () => {
    const examples = docsExamples(server.url);
    const commands = new Set<string>([...Object.values(examples).filter((v): v is string => typeof v === 'string'), ...examples.tools.map(([c]) => c)]);
    for (const page of await allDocsPages()) {
      const document = new JSDOM(await (await fetch(`${server.url}${page}`)).text()).window.document;
      for (const block of document.querySelectorAll('pre, code.command')) {
        const text = block.textContent!;
        if (commands.has(text)) continue;
        expect(() => JSON.parse(text), `a block on ${page} is neither a command run here nor JSON:\n${text}`).not.toThrow();
      }
    }
  }, 120_000);

  it('are each at most 300 KB of HTML, and the anchors other pages link to are on /docs/api', async () => {
    for (const page of await allDocsPages()) {
      const res = await fetch(`${server.url}${page}`);
      expect(res.status, page).toBe(200);
      const bytes = Buffer.byteLength(await res.text());
      expect(bytes, `${page}: ${bytes} bytes`).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    }
    const reference = new JSDOM(await (await fetch(`${server.url}/docs/api`)).text()).window.document;
    const linked = new Set<string>();
    for (const dir of ['app', 'components', 'lib']) {
      for (const file of fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })) {
        if (!/\.tsx?$/.test(file)) continue;
        // A link built in code (`/docs/api#problem-${kind}`) is held below, through the problem table.
        for (const [, anchor] of fs.readFileSync(path.join(ROOT, dir, file), 'utf8').matchAll(/\/docs\/api#([\w-]*\w)(?![\w$-])/g)) linked.add(anchor);
      }
    }
    for (const [, anchor] of fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/\/docs\/api#([\w-]+)/g)) linked.add(anchor);
    expect(linked.size).toBeGreaterThan(2);
    for (const anchor of linked) expect(reference.getElementById(anchor), `#${anchor} on /docs/api`).not.toBeNull();
    for (const kind of Object.keys(PROBLEMS)) expect(reference.getElementById(`problem-${kind}`), `#problem-${kind} on /docs/api`).not.toBeNull();
    for (const doc of await endpointDocs(server.url)) expect(reference.getElementById(doc.anchor), `#${doc.anchor} on /docs/api`).not.toBeNull();
  }, 120_000);
});

/** Every docs page: the six, each endpoint's page and, where it has schemas, its schemas' page. */
async function allDocsPages(): Promise<string[]> {
  const endpoints = await endpointDocs(server.url);
  return [
    ...DOCS_PAGES.map((p) => p.path),
    ...endpoints.map((d) => `/docs/api/${d.anchor}`),
    ...endpoints.filter((d) => d.inputSchema !== undefined || d.outputSchema !== undefined).map((d) => `/docs/api/${d.anchor}/schemas`),
  ];
}

describe('the README', () => {
  it('runs every command of its shell blocks as written, and each answers what the README says', async () => {
    exports = [];
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const blocks = marked.lexer(readme).filter((t): t is Extract<typeof t, { type: 'code' }> => t.type === 'code');
    const shell = blocks.filter((b) => b.lang === 'sh').flatMap((b) => commandsOf(b.text));
    const unknown = shell.filter((c) => !NOT_RUN[c] && !README_SHAPES[c] && !c.startsWith('curl -s -i http://localhost:3000/api/agent/readiness \\'));
    expect(unknown, 'README commands neither run here nor listed in NOT_RUN').toEqual([]);

    const key = await newKey();
    const local = (command: string) => command.replaceAll('http://localhost:3000', server.url).replaceAll('rep_…', placeholders.report ?? 'rep_…');
    exports.push(`export KEY=${key}`);
    let answer: unknown;
    let creditsSeen: number[] = [];
    for (const command of shell) {
      if (NOT_RUN[command]) continue;
      if (command.startsWith('curl -s -i http://localhost:3000/api/agent/readiness \\')) {
        // The walk-through's purchase: its comment promises these two headers.
        const { body, headers } = await runAs(local(command), {
          status: 200,
          headers: { 'credits-remaining': /^24$/, link: /^<\/api\/reports\/rep_[\w-]+>; rel="related"$/ },
          json: ['service', 'idempotencyKey', 'creditsUsage', 'assessment', 'limits', 'artifactHash', 'assessedAt'],
          values: { idempotencyKey: 'walkthrough-0001' },
        });
        answer = body;
        placeholders.report = headers.link.match(/rep_[\w-]+/)![0];
        continue;
      }
      const { body } = await runAs(local(command), README_SHAPES[command]);
      if (body && typeof (body as { callsLeft?: unknown }).callsLeft === 'number') creditsSeen = [...creditsSeen, (body as { callsLeft: number }).callsLeft];
    }
    // "callsLeft falls from 25 to 24".
    expect(creditsSeen).toEqual([25, 24]);

    // The documented answer: every member it shows is in the real one, and every plain value it states is the real one.
    const documented = blocks.find((b) => b.lang === 'json' && b.text.includes('"idempotencyKey":"walkthrough-0001"'))!.text;
    for (const [, member] of documented.matchAll(/"(\w+)":/g)) expect(JSON.stringify(answer), `"${member}" in the real answer`).toContain(`"${member}":`);
    for (const [, member, value] of documented.matchAll(/"(verdict|score|idempotencyKey|authorizesExecution|assessmentVersion|rubricVersion)":("[^"…]*"|[\d.]+|true|false)[,}]/g)) {
      expect(JSON.stringify(answer), `${member} as the README states it`).toContain(`"${member}":${value}`);
    }
  }, 600_000);
});
