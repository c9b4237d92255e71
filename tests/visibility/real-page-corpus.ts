// The saved real pages under tests/fixtures/real-pages/ (Mozilla Readability's test pages) and an independent
// reading of each with jsdom and Intl.Segmenter, for the accuracy test of the page extraction (extract.ts).

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { JSDOM } from 'jsdom';

const DIR = path.join(__dirname, '..', 'fixtures', 'real-pages');

/** The corpus page names, sorted (the file names without `.html.gz`). */
export const CORPUS_PAGES: readonly string[] = readdirSync(DIR).filter((f) => f.endsWith('.html.gz')).map((f) => f.slice(0, -'.html.gz'.length)).sort();

/** One saved page as served: the file is UTF-8, as Readability stores it. */
export function corpusPage(name: string): string {
  return gunzipSync(readFileSync(path.join(DIR, `${name}.html.gz`))).toString('utf8');
}

/** The facts the test compares, as a reference reads them. */
export interface ReferenceFacts {
  title: string | null;
  lang: string | null;
  noindex: boolean;
  jsonLdBlocks: number;
  jsonLdTypes: string[];
  h1Count: number;
  openGraph: { title: boolean; description: boolean; image: boolean; url: boolean; type: boolean };
  wordCount: number;
}

const ROBOTS_NAMES = new Set(['robots', 'googlebot', 'bingbot', 'msnbot', 'applebot']);
// The element names that the HTML standard's rendering section leaves out of the text a reader sees, plus
// the head and the title (metadata, not page text).
const HIDDEN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'HEAD']);
// Phrasing elements that do not separate words ("foo<b>bar</b>" is one word).
const INLINE = new Set(['A', 'ABBR', 'B', 'BDI', 'BDO', 'CITE', 'CODE', 'DATA', 'DFN', 'EM', 'FONT', 'I', 'KBD', 'MARK', 'Q', 'S', 'SAMP', 'SMALL', 'SPAN', 'STRONG', 'SUB', 'SUP', 'TIME', 'U', 'VAR', 'INS', 'DEL', 'LABEL', 'NOBR']);
const HTML_NS = 'http://www.w3.org/1999/xhtml';

function collectTypes(v: unknown, into: Set<string>): void {
  if (Array.isArray(v)) {
    for (const x of v) collectTypes(x, into);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k !== '@type') {
        collectTypes(x, into);
        continue;
      }
      for (const t of [x].flat()) if (typeof t === 'string' && t.trim()) into.add(t.trim().replace(/^https?:\/\/schema\.org\//i, '').replace(/^schema:/i, ''));
    }
  }
}

/** The body's visible text as one string, an element boundary written as a space, for Intl.Segmenter. */
function visibleText(doc: Document): string {
  const parts: string[] = [];
  const walk = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue ?? '');
      if (child.nodeType !== 1) continue;
      const el = child as Element;
      if (el.namespaceURI !== HTML_NS || HIDDEN.has(el.tagName)) continue;
      const block = !INLINE.has(el.tagName);
      if (block) parts.push(' ');
      walk(el);
      if (block) parts.push(' ');
    }
  };
  if (doc.body) walk(doc.body);
  return parts.join('');
}

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });

/**
 * Word-like segments of the text, each whitespace-separated piece segmented whole: no windows, no shortcuts.
 * Cutting at whitespace first changes no count (UAX #29 has no rule that joins letters across a space, WB999)
 * and keeps V8's segment iterator, which slows down with the length of its string, linear.
 */
export function segmenterWords(text: string): number {
  let n = 0;
  for (const piece of text.split(/\s+/)) {
    if (piece === '') continue;
    for (const s of segmenter.segment(piece)) if (s.isWordLike) n++;
  }
  return n;
}

/**
 * The facts as jsdom (a browser DOM over parse5, with scripting on as in a browser and at Google) gives them.
 * @example referenceFacts(corpusPage('qq')).title // 'DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶_科技_腾讯网'
 */
export function referenceFacts(html: string): ReferenceFacts {
  const { window } = new JSDOM(html, { runScripts: 'outside-only' });
  const doc = window.document;
  try {
    const titleEl = doc.querySelector('title');
    const langAttr = doc.documentElement.getAttribute('lang');
    let noindex = false;
    const og = { title: false, description: false, image: false, url: false, type: false };
    for (const meta of doc.querySelectorAll('meta')) {
      const name = (meta.getAttribute('name') ?? '').trim().toLowerCase();
      const content = meta.getAttribute('content');
      if (ROBOTS_NAMES.has(name) && (content ?? '').toLowerCase().split(',').some((d) => ['noindex', 'none'].includes(d.trim()))) noindex = true;
      const prop = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? '').trim().toLowerCase();
      const key = prop.startsWith('og:') ? (prop.slice(3) as keyof typeof og) : null;
      if (key && key in og && content !== null && content.trim()) og[key] = true;
    }
    let jsonLdBlocks = 0;
    const types = new Set<string>();
    for (const script of doc.querySelectorAll('script')) {
      if (script.namespaceURI !== HTML_NS || (script.getAttribute('type') ?? '').split(';')[0].trim().toLowerCase() !== 'application/ld+json') continue;
      jsonLdBlocks++;
      try {
        collectTypes(JSON.parse(script.textContent ?? ''), types);
      } catch {
        // an invalid block counts and names no type
      }
    }
    return {
      title: titleEl ? doc.title : null,
      lang: langAttr !== null && langAttr.trim() ? langAttr.trim() : null,
      noindex,
      jsonLdBlocks,
      jsonLdTypes: [...types].sort(),
      h1Count: [...doc.querySelectorAll('h1')].filter((h) => h.namespaceURI === HTML_NS).length,
      openGraph: og,
      wordCount: segmenterWords(visibleText(doc)),
    };
  } finally {
    window.close();
  }
}
