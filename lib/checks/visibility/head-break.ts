// Where a page's <head> ends before the author meant it to. The HTML standard's "in head" insertion mode
// closes the head at the first element that cannot be in it (an <iframe>, an <img>, a <div>…) or at text that is
// not whitespace; everything after, the author's <meta> and <link> included, is parsed into the body, by browsers,
// by parse5 and by Google, which reads page metadata only in the head. A page that still writes `</head>` or
// `<body>` after that point meant the head to go on: this finds the element (and its line) that ended it.
// One forward pass of the shared tokenizer (html-scan.ts) over the start of the page.

import { htmlTokens, isAsciiWhitespace } from './html-scan';

/** Elements the "in head" insertion mode keeps in the head. */
const HEAD_ELEMENTS: ReadonlySet<string> = new Set(['html', 'head', 'title', 'base', 'basefont', 'bgsound', 'link', 'meta', 'style', 'script', 'noscript', 'template']);

/** `page.headBrokenAt`: the element (or `#text`) that ended the head early, and the line it is on. */
export interface HeadBreak {
  element: string;
  line: number;
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
 * @example headBreak('<head><title>T</title>\n<iframe></iframe><meta name="description" content="d"></head>') // { element: 'iframe', line: 2 }
 */
export function headBreak(html: string): HeadBreak | null {
  let broken: { element: string; at: number } | null = null;
  for (const token of htmlTokens(html)) {
    if ((token.kind === 'end' && token.name === 'head') || (token.kind === 'start' && token.name === 'body')) {
      return broken === null ? null : { element: broken.element, line: lineAt(html, broken.at) };
    }
    if (broken !== null) continue;
    if (token.kind === 'text') {
      const at = firstText(html, token.start, token.end);
      if (at >= 0) broken = { element: '#text', at };
    } else if (token.kind === 'start' && !HEAD_ELEMENTS.has(token.name)) {
      broken = { element: token.name, at: token.start };
    }
  }
  return null;
}
