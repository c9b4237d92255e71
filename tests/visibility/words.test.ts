import { describe, expect, it } from 'vitest';
import { digestHtml } from '@/lib/checks/visibility/access';
import { extractPage } from '@/lib/checks/visibility/extract';
import { countWords, wordsOf } from '@/lib/checks/visibility/words';
import { AR_NEWS, JA_NEWS, KO_NEWS, ZH_NEWS } from './real-pages';

const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
/** ICU word segmentation over the whole text at once: what words.ts must agree with. */
const icuWords = (text: string) => [...segmenter.segment(text)].filter((s) => s.isWordLike).length;
const noHeaders = { headerAll: () => [] };

describe('words: ICU word segmentation, in bounded pieces', () => {
  it('Node has the ICU data to segment Chinese, Japanese and Korean words', () => {
    expect(wordsOf(['北京是中华人民共和国的首都'])).toEqual(['北京', '是', '中华', '人民', '共和国', '的', '首都']);
    expect(wordsOf(['東京は日本の首都です'])).toEqual(['東京', 'は', '日本', 'の', '首都', 'です']);
    expect(wordsOf(['서울은 대한민국의 수도입니다'])).toEqual(['서울은', '대한민국의', '수도입니다']);
  });

  it('agrees with segmenting the whole text at once, on 3,000 random strings of letters, digits, punctuation and spaces', () => {
    const alphabet = ['a', 'B', '1', '-', '.', "'", '_', ',', ' ', '\n', 'é', '北', '京', '是', ':', '(', ')', '/', '\u00a0', '3'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 3000; n++) {
      let text = '';
      for (let i = next() % 12; i > 0; i--) text += alphabet[next() % alphabet.length];
      expect([text, countWords(text)]).toEqual([text, icuWords(text)]);
    }
  });

  it('agrees on a Chinese run far longer than one segmenter window', () => {
    const run = '北京是中华人民共和国的首都，也是全国的政治中心。'.repeat(100);
    expect(countWords(run)).toBe(1200);
    expect(countWords(run)).toBe(icuWords(run));
  });

  it('punctuation alone is no word; text across pieces runs together', () => {
    expect(wordsOf(['Hello, ', 'wor', 'ld', ' - 42'])).toEqual(['hello', 'world', '42']);
    expect(countWords('— - …')).toBe(0);
  });
});

describe('words: CJK and Arabic news pages count their words', () => {
  // Counted as whitespace runs, the Chinese and Japanese pages had 15 words each (little-server-text); Korean and
  // Arabic separate words with spaces, and ICU agrees with whitespace counting on them.
  it.each([
    ['zh', ZH_NEWS, 334],
    ['ja', JA_NEWS, 340],
    ['ko', KO_NEWS, 126],
    ['ar', AR_NEWS, 155],
  ])('%s: the page and the access probe digest count the same words', (_lang, html, expected) => {
    const facts = extractPage(html, 'https://news.test/a', noHeaders, false);
    expect(facts.wordCount).toBe(expected);
    expect(digestHtml(html).words).toBe(expected);
  });
});
