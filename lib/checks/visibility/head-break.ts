// Where a page's <head> ends before the author meant it to. The HTML standard's "in head" insertion mode
// closes the head at the first element that cannot be in it (an <iframe>, an <img>, a <div>…) or at text that is
// not whitespace; everything after, the author's <meta> and <link> included, is parsed into the body, by browsers,
// by parse5 and by Google, which reads page metadata only in the head. A page that still writes `</head>` or
// `<body>` after that point meant the head to go on: this finds the element (and its line) that ended it.
// One forward scan with indexOf over the start of the page: linear, no regular expression over the body.

/** Elements the "in head" insertion mode keeps in the head. */
const HEAD_ELEMENTS: ReadonlySet<string> = new Set(['html', 'head', 'title', 'base', 'basefont', 'bgsound', 'link', 'meta', 'style', 'script', 'noscript', 'template']);
/** Of those, the ones whose content is raw text (or, for template, anything) up to their end tag. */
const SKIP_CONTENT: ReadonlySet<string> = new Set(['title', 'style', 'script', 'noscript', 'template']);

/** `page.headBrokenAt`: the element (or `#text`) that ended the head early, and the line it is on. */
export interface HeadBreak {
  element: string;
  line: number;
}

const isAsciiWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isAsciiLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

function tagNameAt(lower: string, from: number): string {
  let end = from;
  while (end < lower.length && end - from < 32) {
    const c = lower.charCodeAt(end);
    if (isAsciiWhitespace(c) || c === 0x2f /* / */ || c === 0x3e /* > */) break;
    end++;
  }
  return lower.slice(from, end);
}

function lineAt(html: string, index: number): number {
  let line = 1;
  for (let at = html.indexOf('\n'); at >= 0 && at < index; at = html.indexOf('\n', at + 1)) line++;
  return line;
}

/**
 * The element that ended the head before the page's own `</head>` or `<body>`, or null when the head ends where
 * the page says (or the page never says, which is valid HTML).
 * @example headBreak('<head><title>T</title>\n<iframe></iframe><meta name="description" content="d"></head>') // { element: 'iframe', line: 2 }
 */
export function headBreak(html: string): HeadBreak | null {
  const lower = html.toLowerCase();
  let broken: { element: string; at: number } | null = null;
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    // Text between tags: anything but whitespace ends the head (a BOM at the very start is not text).
    const textEnd = lt < 0 ? html.length : lt;
    for (let k = i; broken === null && k < textEnd; k++) {
      const c = html.charCodeAt(k);
      if (!isAsciiWhitespace(c) && !(k === 0 && c === 0xfeff)) broken = { element: '#text', at: k };
    }
    if (lt < 0) break;
    if (lower.startsWith('<!--', lt)) {
      const end = lower.indexOf('-->', lt + 4);
      if (end < 0) break;
      i = end + 3;
      continue;
    }
    const first = html.charCodeAt(lt + 1);
    if (first === 0x21 /* ! */ || first === 0x3f /* ? */) {
      const end = html.indexOf('>', lt);
      if (end < 0) break;
      i = end + 1;
      continue;
    }
    if (first === 0x2f /* / */) {
      const name = tagNameAt(lower, lt + 2);
      if (name === 'head') return broken === null ? null : { element: broken.element, line: lineAt(html, broken.at) };
      const end = html.indexOf('>', lt);
      if (end < 0) break;
      i = end + 1;
      continue;
    }
    if (!isAsciiLetter(first)) {
      // A lone '<' is text.
      if (broken === null) broken = { element: '#text', at: lt };
      i = lt + 1;
      continue;
    }
    const name = tagNameAt(lower, lt + 1);
    if (name === 'body') return broken === null ? null : { element: broken.element, line: lineAt(html, broken.at) };
    const end = html.indexOf('>', lt);
    if (end < 0) break;
    i = end + 1;
    if (!HEAD_ELEMENTS.has(name)) {
      if (broken === null) broken = { element: name, at: lt };
      continue;
    }
    if (SKIP_CONTENT.has(name)) {
      const close = lower.indexOf(`</${name}`, i);
      if (close < 0) break;
      i = close;
    }
  }
  return null;
}
