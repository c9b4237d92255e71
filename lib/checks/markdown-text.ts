// Values in a report's Markdown (the MCP tool's text, the site's "Copy as Markdown") come from the stored body:
// a page's title, description, addresses and robots lines are whatever the checked site served, a workflow's name
// whatever its buyer typed. Printed as they are, a site would put a tracking image, a link saying "Claim your
// refund", raw HTML or a heading into every reader's report. Every such value goes through one of these two, so a
// CommonMark or GitHub-flavoured reader shows it as the text it was and builds nothing from it. Pure: the site's
// browser bundle loads it.

/**
 * Characters that open or close something inline wherever they stand: escapes, code, emphasis, links and images,
 * autolinks and HTML, entities, strikethrough, table cells, headings, math, and an e-mail autolink's `@`. An
 * underscore between two letters or digits opens and closes nothing (`payment_challenge`), so it stays as it is.
 */
const INLINE_SIGNIFICANT = /[\\`*[\]<>&!~|#$@_]/g;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

const textOf = (value: unknown): string =>
  (typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : '').replace(/\s+/g, ' ').trim();

// No lookbehind in the pattern: the browser bundle loads this module, and older Safari cannot parse one.
const escaped = (text: string): string =>
  text.replace(INLINE_SIGNIFICANT, (c: string, at: number) => (c === '_' && LETTER_OR_DIGIT.test(text.charAt(at - 1)) && LETTER_OR_DIGIT.test(text.charAt(at + 1)) ? c : `\\${c}`));

/** Characters a scheme's name is made of (`https`, `git+ssh`), and those of an e-mail's local part. */
const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LOCAL_PART_CHAR = /[\w.+-]/;
/** Punctuation that closes a sentence or a bracket after an address: left out of it, as GFM readers leave it. */
const CLOSING = '.,;:!?\'")]}\u201d\u2019\u00bb\u203a';

/**
 * Where, in one word (no spaces), a GitHub-flavoured reader would start a link of its own: a scheme's `://` (from the
 * scheme's first letter), `www.`, `mailto:` or `xmpp:`, or an e-mail address (from its local part); -1 for none.
 * Plain scans rather than one pattern, so a long word costs one pass.
 */
function bareLinkStart(word: string): number {
  const lower = word.toLowerCase();
  const starts = ['www.', 'mailto:', 'xmpp:'].map((marker) => lower.indexOf(marker)).filter((i) => i >= 0);
  // Each `://` and each `@` is looked at once, and no walk back passes another (`:`, `/` and `@` stop it).
  for (let colon = word.indexOf('://'); colon >= 0; colon = word.indexOf('://', colon + 1)) {
    let i = colon;
    while (i > 0 && SCHEME_CHAR.test(word[i - 1])) i--;
    while (i < colon && !/[a-z]/i.test(word[i])) i++;
    if (i < colon) {
      starts.push(i);
      break;
    }
  }
  const lastDot = word.lastIndexOf('.');
  for (let at = word.indexOf('@'); at >= 0 && at < lastDot; at = word.indexOf('@', at + 1)) {
    let i = at;
    while (i > 0 && LOCAL_PART_CHAR.test(word[i - 1])) i--;
    if (i < at) {
      starts.push(i);
      break;
    }
  }
  return starts.length ? Math.min(...starts) : -1;
}

/**
 * One word as Markdown: what a GitHub-flavoured reader would link by itself (remark-gfm finds addresses in the text
 * after escapes are read, so no backslash keeps them text) is printed as code, where no reader looks for links;
 * the rest, its closing punctuation included, is escaped.
 */
function markdownWord(word: string): string {
  const start = bareLinkStart(word);
  if (start < 0) return escaped(word);
  let end = word.length;
  while (end > start + 1 && CLOSING.includes(word[end - 1])) end--;
  return escaped(word.slice(0, start)) + markdownCode(word.slice(start, end)) + escaped(word.slice(end));
}

/**
 * `value` as Markdown that shows exactly `value` and builds nothing: on one line (any run of whitespace, line
 * breaks included, is one space; ends trimmed), every character that could start inline Markdown or HTML
 * backslash-escaped, a bare address or e-mail in it printed as code, and a list marker, setext underline or
 * thematic break where it starts escaped too. Safe at the start of a line, after a list marker and
 * inside `**…**`. Numbers are written as text; anything else is empty.
 * @example markdownText('Claim your refund: [here](https://evil.example)') // 'Claim your refund: \\[here\\](`https://evil.example`)'
 */
export function markdownText(value: unknown): string {
  const out = textOf(value).split(' ').map(markdownWord).join(' ');
  // Only where the value starts can it open a block: a list item (`- `, `+ `, `1. `, `1) `), or a thematic break or
  // setext underline (a value of `-` or `=` alone).
  return out.replace(/^(?:[-+](?= |$)|[-=](?=[-=]*$))/, '\\$&').replace(/^(\d{1,9})([.)])(?= |$)/, '$1\\$2');
}

/**
 * `value` as one Markdown code span (a command to paste, a robots.txt rule): on one line, fenced by more backticks
 * than its longest run of them, padded with a space where it starts or ends with a backtick, so nothing in it is
 * read as Markdown; empty for an empty value.
 * @example markdownCode('npx mppx validate https://<your-host>') // '`npx mppx validate https://<your-host>`'
 */
export function markdownCode(value: unknown): string {
  const text = textOf(value);
  if (!text) return '';
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
