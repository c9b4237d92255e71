// Evidence strings are classified by published patterns, tried in a fixed order; the first that matches wins.
// Nothing is fetched or opened: "checkable" means the string names something a reader could check (an address,
// a file, a test, a command or a record), not that it was checked.

// The order of EVIDENCE_RULES is part of the rules: a command that names an address is a command, a test file is a
// test before it is a path.
export type EvidenceKind = 'url' | 'path' | 'test' | 'command' | 'reference' | 'statement';

export interface EvidenceItem {
  text: string;
  kind: EvidenceKind;
  checkable: boolean;
}

export interface EvidenceRule {
  kind: Exclude<EvidenceKind, 'statement'>;
  rule: string;
  patterns: readonly RegExp[];
  examples: readonly string[];
}

const FILE_EXTENSIONS = 'ts|tsx|js|jsx|mjs|cjs|py|go|rs|rb|java|kt|cs|php|swift|sql|json|ya?ml|toml|ini|md|txt|sh|tf|proto|graphql|env|lock|html|csv';
/** Tools whose name is never an English word, so the name followed by an argument is a command. */
const TOOLS = 'npx|npm|pnpm|yarn|bunx|curl|wget|mppx|psql|sqlite3|redis-cli|kubectl|terraform|pytest|docker|jq|gh|cast|forge';
/** Tools whose name is also a word: a command only with one of these subcommands. */
const TOOL_SUBCOMMANDS = 'stripe (?:listen|trigger|events|logs|webhook_endpoints|payment_intents|charges|refunds)|go (?:test|run|vet)|git (?:log|show|grep|blame)|cargo (?:test|run)|node \\S+\\.[cm]?[jt]s|python3? (?:-m|\\S+\\.py)';
/** Top-level folder names a repository commonly has. */
const REPOSITORY_FOLDERS = 'docs?|src|lib|app|apps|packages|tests?|specs?|migrations|scripts|config|infra|deploy|schemas?|e2e|runbooks?';
/** Words that make a phrase ending in "test" a statement about testing rather than the name of a test. */
const NOT_A_TEST_NAME = 'no|not|without|none|todo|planned|manual|manually|some|a|an';
/** Standard names written like ticket keys (EIP-3009, RFC-9457): they name a standard, not a record. */
const STANDARD_PREFIXES = 'EIP|ERC|RFC|ISO|BIP|CAIP|SHA|UTF|HTTP|TLS|AES';

const display = (alternation: string) => alternation.replace(/\?/g, '').replace(/\\/g, '').split('|').join(', ');

export const EVIDENCE_RULES: readonly EvidenceRule[] = [
  {
    kind: 'command',
    rule:
      `starts with a shell prompt ($ or >) and a word, or with a command in backticks, or with a tool (${display(TOOLS)}) and an argument, ` +
      'or with stripe listen|trigger|events|logs|…, go test|run|vet, git log|show|grep|blame, cargo test|run, node <file>.js, python -m or python <file>.py',
    patterns: [/^\s*[$>]\s+\S/, /^\s*`[^`]+`/, new RegExp(`^\\s*(?:${TOOLS})\\s+\\S`, 'i'), new RegExp(`^\\s*(?:${TOOL_SUBCOMMANDS})\\b`, 'i')],
    examples: ['npx mppx validate https://api.example.com --endpoint POST:/v1/orders', '$ stripe trigger payment_intent.succeeded', '`make reconcile`'],
  },
  {
    kind: 'url',
    rule: 'contains an http:// or https:// address',
    patterns: [/\bhttps?:\/\/[^\s/$.?#][^\s]*/i],
    examples: ['https://api.example.com/openapi.json', 'dashboard at https://grafana.example.com/d/payments'],
  },
  {
    kind: 'test',
    rule:
      'names a test file (*.test.*, *.spec.*, *_test.go, test_*.py, *Test.java, *Spec.rb, …), a test in code (it(…), test(…), describe(…)), ' +
      `or is a name of three or more words ending in "test", "tests" or "spec" (not when it has the word ${display(NOT_A_TEST_NAME)})`,
    patterns: [
      /\.(?:test|spec)\.[a-z]+\b/i,
      /\b[\w/-]*_test\.go\b/,
      /\btest_\w+\.py\b/,
      /\b\w+(?:Test|Tests|Spec)\.(?:java|kt|rb|cs|swift|php)\b/,
      /\b(?:it|test|describe)\s*\(\s*['"`]/,
      new RegExp(`^(?!.*\\b(?:${NOT_A_TEST_NAME})\\b)\\s*(?:\\S+\\s+){2,}(?:test|tests|spec)\\.?\\s*$`, 'i'),
    ],
    examples: ['tests/api/idempotency.test.ts', 'webhook_test.go', "it('replays the stored answer')", 'Idempotency-Key replay test'],
  },
  {
    kind: 'path',
    rule:
      'names a repository path: a word with a slash that starts with /, ./, ../ or ~/, or ends with /, or has two slashes, ' +
      `or starts with a common repository folder (${display(REPOSITORY_FOLDERS)}); or a file name with a known extension ` +
      `(.${display(FILE_EXTENSIONS).split(', ').join(', .')}); or is only the name of such a folder`,
    patterns: [
      /(?:^|\s)(?:\.{0,2}\/|~\/)[\w.@-]+/,
      /(?:^|\s)(?![a-z]+:\/\/)[\w.@-]+\/(?:[\w.@-]+\/)+[\w.@-]*/i,
      /(?:^|\s)[\w.@-]+\/(?=\s|$)/,
      new RegExp(`(?:^|\\s)(?:${REPOSITORY_FOLDERS})\\/[\\w.@-]+`, 'i'),
      new RegExp(`\\b[\\w-]+\\.(?:${FILE_EXTENSIONS})\\b`, 'i'),
      new RegExp(`^\\s*(?:${REPOSITORY_FOLDERS})\\s*$`, 'i'),
    ],
    examples: ['lib/payments/webhook.ts', 'openapi.json with x-payment-info', 'src/orders', 'docs'],
  },
  {
    kind: 'reference',
    rule:
      `names a record: a ticket key (PAY-123; not a standard such as ${display(STANDARD_PREFIXES)}-…), an issue or pull request number (#123, PR 123), ` +
      'a payment processor object id (evt_, pi_, ch_, re_, cus_, in_, po_, txn_, dp_, cs_, seti_, pm_ and six or more letters or digits), ' +
      'a transaction hash (0x and 64 hex digits), or the word runbook, dashboard, log, ticket, incident, record, alert or ADR followed by an id with a digit or a quoted name',
    patterns: [
      new RegExp(`\\b(?!(?:${STANDARD_PREFIXES})-)[A-Z][A-Z0-9]{1,9}-\\d+\\b`),
      /(?:^|\s)#\d+\b/,
      /\b(?:PR|MR|pull request|issue)\s*#?\d+\b/i,
      /\b(?:evt|pi|ch|re|cus|in|po|txn|dp|cs|seti|pm)_[A-Za-z0-9]{6,}\b/,
      /\b0x[0-9a-fA-F]{64}\b/,
      /\b(?:runbook|dashboard|log|ticket|incident|record|alert|adr)s?\b[\s:#]*(?:[A-Za-z._-]*\d|["'“][^"'”]+["'”])/i,
    ],
    examples: ['PAY-412', 'PR #88', 'evt_1PqR2sT3uV4wX5yZ', 'runbook "stuck settlements"'],
  },
];

/**
 * Classifies one evidence string by the published rules (EVIDENCE_RULES, first match wins); no rule: `statement`.
 * @example classifyEvidence('tests/api/idempotency.test.ts') // { text: 'tests/api/idempotency.test.ts', kind: 'test', checkable: true }
 */
export function classifyEvidence(text: string): EvidenceItem {
  for (const rule of EVIDENCE_RULES) {
    if (rule.patterns.some((p) => p.test(text))) return { text, kind: rule.kind, checkable: true };
  }
  return { text, kind: 'statement', checkable: false };
}
