// One forward pass over HTML source as a stream of tokens, for the two readers that need only the shape of a page
// and must not build its tree: where the head ends (head-break.ts) and the title and word count of a probe's body
// (access.ts), run on every response a check reads, up to a few MB. parse5 builds the whole tree with positions,
// which costs tens of times more for what these readers ask; the tree the check reads comes from parse5 (extract.ts).
// Tokenised as the HTML standard's tokenizer does for these purposes: a '<' not followed by a letter, '/', '!' or
// '?' is text; a tag's name runs to whitespace, '/' or '>'; comments run to '-->'; the content of title, style,
// script, noscript and template is raw text up to its end tag. Linear: indexOf jumps, no regular expression.

/** A token's place in the source: `start` at its first character, `end` just past its last. */
export type HtmlToken =
  | { kind: 'text'; start: number; end: number }
  | { kind: 'start' | 'end'; name: string; start: number; end: number }
  /** Comments, doctypes and processing instructions: not text, and a word ends at them. */
  | { kind: 'markup'; start: number; end: number }
  /** The content of a raw-text element (`name`), up to its end tag, which follows as its own token (or to the end of the source). */
  | { kind: 'raw'; name: string; start: number; end: number };

/** Elements whose content is raw text (or, for template, read here as if it were) up to their end tag. */
const RAW_TEXT: ReadonlySet<string> = new Set(['title', 'style', 'script', 'noscript', 'template']);

export const isAsciiWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const isAsciiLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/** Tag names longer than this are cut: no element a reader looks for is longer. */
const MAX_NAME = 32;

function tagNameAt(lower: string, from: number): string {
  let end = from;
  while (end < lower.length && end - from < MAX_NAME) {
    const c = lower.charCodeAt(end);
    if (isAsciiWhitespace(c) || c === 0x2f /* / */ || c === 0x3e /* > */) break;
    end++;
  }
  return lower.slice(from, end);
}

/**
 * The tokens of `html`, in order; a tag, comment or doctype left open at the end of the source ends the stream.
 * Names are lowercase; `lower` is `html.toLowerCase()` when the caller has it already.
 * @example [...htmlTokens('<p>Hi</p>')].map((t) => t.kind) // ['start', 'text', 'end']
 */
export function* htmlTokens(html: string, lower = html.toLowerCase()): Generator<HtmlToken> {
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    const textEnd = lt < 0 ? n : lt;
    if (textEnd > i) yield { kind: 'text', start: i, end: textEnd };
    if (lt < 0) return;
    const first = html.charCodeAt(lt + 1);
    if (lower.startsWith('<!--', lt)) {
      const close = lower.indexOf('-->', lt + 4);
      if (close < 0) return;
      i = close + 3;
      yield { kind: 'markup', start: lt, end: i };
      continue;
    }
    if (first === 0x21 /* ! */ || first === 0x3f /* ? */ || first === 0x2f /* / */) {
      const close = html.indexOf('>', lt);
      if (close < 0) return;
      i = close + 1;
      yield first === 0x2f ? { kind: 'end', name: tagNameAt(lower, lt + 2), start: lt, end: i } : { kind: 'markup', start: lt, end: i };
      continue;
    }
    if (!isAsciiLetter(first)) {
      // A lone '<' is text.
      yield { kind: 'text', start: lt, end: lt + 1 };
      i = lt + 1;
      continue;
    }
    const name = tagNameAt(lower, lt + 1);
    const close = html.indexOf('>', lt);
    if (close < 0) return;
    i = close + 1;
    yield { kind: 'start', name, start: lt, end: i };
    if (RAW_TEXT.has(name)) {
      const endTag = lower.indexOf(`</${name}`, i);
      const rawEnd = endTag < 0 ? n : endTag;
      yield { kind: 'raw', name, start: i, end: rawEnd };
      i = rawEnd;
    }
  }
}
