// Where a page's <head> ends before the author meant it to. The HTML standard's "in head" insertion mode
// closes the head at the first element that cannot be in it (an <iframe>, an <img>, a <div>…) or at text that is
// not whitespace; everything after, the author's <meta> and <link> included, is parsed into the body, by browsers,
// by parse5 and by Google, which reads page metadata only in the head. A page that still writes `</head>` or
// `<body>` after that point meant the head to go on: this finds the element (and its line) that ended it.
// One forward pass of the shared tokenizer (html-scan.ts) over the start of the page.

import { htmlTokens, isAsciiWhitespace } from './html-scan';

/** Elements the "in head" insertion mode keeps in the head. */
const HEAD_ELEMENTS: ReadonlySet<string> = new Set(['html', 'head', 'title', 'base', 'basefont', 'bgsound', 'link', 'meta', 'style', 'script', 'noscript', 'template']);

/**
 * `page.headBrokenAt`: the element (or `#text`) that ended the head early, the line it is on, and the head
 * elements written after it that lose their effect in the body (`displaced`, at most HEAD_DISPLACED_MAX).
 */
export interface HeadBreak {
  element: string;
  line: number;
  displaced: string[];
}

/** Displaced elements listed at most: the first ones tell the owner what the break costs. */
export const HEAD_DISPLACED_MAX = 5;

// The link types the HTML standard calls "body-ok": a <link> with only these works in the body as in the head.
const BODY_OK_LINKS: ReadonlySet<string> = new Set(['dns-prefetch', 'modulepreload', 'pingback', 'preconnect', 'prefetch', 'preload', 'stylesheet']);

// One attribute of a start tag's source: its value quoted either way or unquoted.
const ATTRIBUTES = {
  rel: /[\s"']rel\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i,
  itemprop: /[\s"']itemprop\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i,
  name: /[\s"']name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i,
  property: /[\s"']property\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i,
  'http-equiv': /[\s"']http-equiv\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i,
} as const;

/** One attribute's value in a start tag's source, lowercased and cut to 40 characters (a label stays within 64); null when absent. */
function attrIn(tag: string, name: keyof typeof ATTRIBUTES): string | null {
  const m = ATTRIBUTES[name].exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3]).trim().toLowerCase().slice(0, 40) : null;
}

/**
 * What a head element written after the break loses in the body, named as the owner wrote it
 * (`<meta name="description">`, `<link rel="canonical">`); null when it works in the body as well: scripts and
 * styles, a <link> whose types are all body-ok, a <meta itemprop> (microdata, allowed in the body).
 */
function displacedLabel(name: string, tag: string): string | null {
  if (name === 'title' || name === 'base') return `<${name}>`;
  if (name === 'link') {
    const rel = attrIn(tag, 'rel') ?? '';
    const types = rel.split(/\s+/).filter(Boolean);
    if (types.length > 0 && types.every((t) => BODY_OK_LINKS.has(t))) return null;
    return `<link rel="${rel}">`;
  }
  if (name === 'meta') {
    if (attrIn(tag, 'itemprop') !== null) return null;
    const metaName = attrIn(tag, 'name');
    if (metaName !== null) return `<meta name="${metaName}">`;
    const property = attrIn(tag, 'property');
    if (property !== null) return `<meta property="${property}">`;
    const equiv = attrIn(tag, 'http-equiv');
    if (equiv !== null) return `<meta http-equiv="${equiv}">`;
    // <meta charset> is read by the encoding sniffer wherever it is in the first 1024 bytes, not by the tree.
    return null;
  }
  return null;
}

function lineAt(html: string, index: number): number {
  let line = 1;
  for (let at = html.indexOf('\n'); at >= 0 && at < index; at = html.indexOf('\n', at + 1)) line++;
  return line;
}

/** Where the first character that is not whitespace is in [start, end) (a BOM at the very start is not text). */
function firstText(html: string, start: number, end: number): number {
  for (let k = start; k < end; k++) {
    const c = html.charCodeAt(k);
    if (!isAsciiWhitespace(c) && !(k === 0 && c === 0xfeff)) return k;
  }
  return -1;
}

/**
 * The element that ended the head before the page's own `</head>` or `<body>`, or null when the head ends where
 * the page says (or the page never says, which is valid HTML).
 * @example headBreak('<head><title>T</title>\n<iframe></iframe><meta name="description" content="d"></head>') // { element: 'iframe', line: 2, displaced: ['<meta name="description">'] }
 */
export function headBreak(html: string): HeadBreak | null {
  let broken: { element: string; at: number } | null = null;
  const displaced = new Set<string>();
  for (const token of htmlTokens(html)) {
    if ((token.kind === 'end' && token.name === 'head') || (token.kind === 'start' && token.name === 'body')) {
      return broken === null ? null : { element: broken.element, line: lineAt(html, broken.at), displaced: [...displaced] };
    }
    if (broken !== null) {
      if (token.kind === 'start' && displaced.size < HEAD_DISPLACED_MAX) {
        const label = displacedLabel(token.name, html.slice(token.start, token.end));
        if (label !== null) displaced.add(label);
      }
      continue;
    }
    if (token.kind === 'text') {
      const at = firstText(html, token.start, token.end);
      if (at >= 0) broken = { element: '#text', at };
    } else if (token.kind === 'start' && !HEAD_ELEMENTS.has(token.name)) {
      broken = { element: token.name, at: token.start };
    }
  }
  return null;
}
