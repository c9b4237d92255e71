// Word counting for the AI Visibility Check: the one definition of a word that the page facts (extract.ts),
// the rendered comparison (render/compare.ts) and the access probes (access.ts) share. A word is a word-like
// segment of Unicode word segmentation (UAX #29 with ICU's dictionaries, through Intl.Segmenter), so Chinese,
// Japanese and Thai text, written without spaces between words, counts its words rather than its sentences,
// and text in scripts that separate words with spaces counts as whitespace splitting does (punctuation alone
// is no word).
//
// Cost: V8's segment iterator slows down with the length of the string it walks, so text is never handed to it
// whole. Whitespace always separates word segments, so text is cut into whitespace-free runs first; a run of
// ASCII letters and digits with at most ASCII punctuation around it is one word without asking ICU (the common
// case in Latin-script text), and a long run without spaces (a Chinese paragraph) is segmented in windows of
// SEGMENT_WINDOW characters, each restarting at the last segment boundary the previous window found.

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });

/** Characters one call to the segmenter sees at most: short enough to keep its cost per character flat. */
const SEGMENT_WINDOW = 256;

/**
 * The characters JavaScript's \s matches: every one of them ends a word segment.
 * @example isWhiteSpace(0x3000) // true: the ideographic space
 */
export function isWhiteSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

const isAsciiAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
// `_` joins letters into one word in UAX #29 (ExtendNumLet), so it cannot be treated as edge punctuation.
const isAsciiEdgePunctuation = (c: number) => c < 0x80 && c !== 0x5f && !isAsciiAlnum(c);

/**
 * The word-like segments of one whitespace-free run: `emit` gets each (as written), and the count is returned.
 * ASCII runs whose letters and digits are not interrupted by punctuation take the fast path.
 */
function segmentRun(run: string, emit: ((word: string) => void) | null): number {
  let start = 0;
  let end = run.length;
  while (start < end && isAsciiEdgePunctuation(run.charCodeAt(start))) start++;
  while (end > start && isAsciiEdgePunctuation(run.charCodeAt(end - 1))) end--;
  if (start === end && end === run.length) return 0; // ASCII punctuation only
  let plain = start < end;
  for (let i = start; plain && i < end; i++) plain = isAsciiAlnum(run.charCodeAt(i));
  if (plain) {
    emit?.(run.slice(start, end));
    return 1;
  }
  let count = 0;
  let pos = 0;
  while (pos < run.length) {
    const windowEnd = Math.min(run.length, pos + SEGMENT_WINDOW);
    const part = run.slice(pos, windowEnd);
    // The window's last segment may continue past it: unless the run ends here, it is read again at the start
    // of the next window. A window that is one segment long is taken as it is (a 256-character "word").
    let lastIndex = 0;
    let lastSegment = '';
    let lastWordLike = false;
    let first = true;
    for (const s of segmenter.segment(part)) {
      if (!first && lastWordLike) {
        count++;
        emit?.(lastSegment);
      }
      first = false;
      lastIndex = s.index;
      lastSegment = s.segment;
      lastWordLike = s.isWordLike === true;
    }
    if (windowEnd === run.length || lastIndex === 0) {
      if (lastWordLike) {
        count++;
        emit?.(lastSegment);
      }
      pos = windowEnd;
    } else {
      pos += lastIndex;
    }
  }
  return count;
}

/**
 * Counts words across text handed over in pieces: pieces run together unless `boundary()` is called between
 * them (an HTML element boundary), and whitespace anywhere ends a word.
 * @example
 *   const counter = new WordCounter();
 *   counter.add('foo'); counter.add('bar'); counter.boundary(); counter.add('北京是首都');
 *   counter.words // 4: 'foobar', '北京', '是', '首都'
 */
export class WordCounter {
  words = 0;
  private run = '';
  constructor(private readonly emit: ((word: string) => void) | null = null) {}

  /** Adds text, which continues the current word when it does not start with whitespace. */
  add(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      if (!isWhiteSpace(text.charCodeAt(i))) continue;
      if (i > start) this.run += text.slice(start, i);
      this.boundary();
      start = i + 1;
    }
    if (start < text.length) this.run += start === 0 ? text : text.slice(start);
  }

  /** Ends the current word, as whitespace would. */
  boundary(): void {
    if (this.run === '') return;
    this.words += segmentRun(this.run, this.emit);
    this.run = '';
  }

  /** Ends the last word and returns the count. */
  finish(): number {
    this.boundary();
    return this.words;
  }
}

/**
 * The number of words in a text.
 * @example countWords('北京是中华人民共和国的首都') // 7
 */
export function countWords(text: string): number {
  const counter = new WordCounter();
  counter.add(text);
  return counter.finish();
}

/**
 * The words of text chunks joined as they are (so `wordsOf(chunks).length` is the page's wordCount), lowercased.
 * @example wordsOf(['Hello, ', 'wor', 'ld', ' - 42']) // ['hello', 'world', '42']
 */
export function wordsOf(chunks: readonly string[]): string[] {
  const words: string[] = [];
  const counter = new WordCounter((w) => words.push(w.toLowerCase()));
  for (const chunk of chunks) counter.add(chunk);
  counter.finish();
  return words;
}
