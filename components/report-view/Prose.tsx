import { Fragment } from 'react';

// A check's sentences for people still name what a developer types or copies: an API member (paidRoundTrip), a
// contract function (transferWithAuthorization), an event (payment_intent.succeeded), a file (llms.txt), an address
// (a URL, a 0x account). Set as code, a reader sees at once which words are to be typed as they stand and which are
// to be read; addresses may break anywhere, so the prose around them never has to. Only shapes no English word has
// qualify: an underscore inside a word, a capital inside a lower-case word, dotted lower-case parts.
const ADDRESS = String.raw`0x[0-9a-fA-F]{40}|https?:\/\/[^\s,;)"'<>]+`;
const TYPED = String.raw`\b(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?:\.[a-z_]+)*|[a-z]{2,}[A-Z][A-Za-z0-9]*|[a-z][a-z0-9-]*(?:\.[a-z][A-Za-z0-9-]+)+)\b`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const tokens = (names: readonly string[]) =>
  new RegExp(`(${ADDRESS})|${TYPED}${names.length ? `|(?<![\\w-])(?:${[...names].sort((a, b) => b.length - a.length).map(escape).join('|')})(?![\\w-])` : ''}`, 'g');
const TOKENS = tokens([]);

type Part = { text: string; kind?: 'typed' | 'address' };

/**
 * The text's parts: plain text, the names a developer types, and addresses. `names`: a vocabulary's own names that
 * read like words joined by hyphens (a verdict such as not-ready), which no shape tells apart from English.
 * @example proseParts('set paidRoundTrip to true') // [{ text: 'set ' }, { text: 'paidRoundTrip', kind: 'typed' }, { text: ' to true' }]
 */
export function proseParts(text: string, names: readonly string[] = []): Part[] {
  const parts: Part[] = [];
  let at = 0;
  for (const m of text.matchAll(names.length ? tokens(names) : TOKENS)) {
    if (m.index > at) parts.push({ text: text.slice(at, m.index) });
    parts.push({ text: m[0], kind: m[1] ? 'address' : 'typed' });
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

/** A long name (agent_payment_readiness_assessment) may wrap after its underscores and dots, never inside a word. */
function breakable(name: string) {
  return name.split(/(?<=[_.])/).map((piece, i) => (i ? <Fragment key={i}><wbr />{piece}</Fragment> : piece));
}

/**
 * A sentence from a check, with the names in it a developer types, and its addresses, set as code.
 * @example <Prose text={finding.fix} />
 */
export function Prose({ text, names }: { text: string; names?: readonly string[] }) {
  return (
    <>
      {proseParts(text, names).map((p, i) =>
        p.kind === 'address' ? <code key={i} className="url">{p.text}</code> : p.kind === 'typed' ? <code key={i}>{breakable(p.text)}</code> : <Fragment key={i}>{p.text}</Fragment>,
      )}
    </>
  );
}
