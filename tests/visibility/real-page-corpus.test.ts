import { describe, expect, it } from 'vitest';
import { extractPage } from '@/lib/checks/visibility/extract';
import { CORPUS_PAGES, corpusPage, referenceFacts, segmenterWords } from './real-page-corpus';

// Accuracy of the page extraction on real pages: each saved page (tests/fixtures/README.md) is read by
// extract.ts and, independently, by jsdom (a browser DOM) with Intl.Segmenter counting the words, and every
// compared fact must agree exactly. Both parse with the HTML standard's scripting flag on, as browsers and
// Google's renderer do, so <noscript> is raw text for both (HTML standard, "parsing main inhead": a <noscript>
// start tag with the scripting flag enabled follows the generic raw text element parsing algorithm).
// No page disagrees today; a disagreement is either fixed in extract.ts or listed here with the rule that
// decides who is right.

const URL_ = 'https://corpus.test/page';
const noHeaders = { headerAll: () => [] as string[] };

describe('the corpus', () => {
  it('holds 38 saved pages: Chinese, Japanese, right-to-left and pages over 1 MB among them', () => {
    expect(CORPUS_PAGES).toHaveLength(38);
    const sizes = CORPUS_PAGES.map((name) => Buffer.byteLength(corpusPage(name)));
    expect(sizes.filter((s) => s > 1_000_000)).toHaveLength(5);
    expect(CORPUS_PAGES).toEqual(expect.arrayContaining(['qq', 'pixnet', 'gmw', 'youth', 'yahoo-4', 'hukumusume', 'rtl-1', 'rtl-2', 'rtl-3', 'rtl-4', 'yahoo-2', 'yahoo-3', 'guardian-1', 'wikipedia-2']));
  });

  it('the reference counts words as ICU does: Chinese and Japanese by dictionary, Arabic and Hebrew by spaces', () => {
    expect(segmenterWords('北京是中华人民共和国的首都')).toBe(7);
    expect(segmenterWords('東京は日本の首都です')).toBe(6);
    expect(segmenterWords('مرحبا بكم في الموقع')).toBe(4);
    expect(segmenterWords('שלום עולם, מה שלומך?')).toBe(4);
  });
});

describe('extract.ts agrees with jsdom and Intl.Segmenter on every saved page', () => {
  it.each(CORPUS_PAGES)('%s', (name) => {
    const html = corpusPage(name);
    const ours = extractPage(html, URL_, noHeaders, false);
    const reference = referenceFacts(html);
    // None of these pages reaches the read or parse limits, so every fact covers the whole page.
    expect(ours.truncated).toBe(false);
    expect({
      title: ours.title,
      lang: ours.lang,
      noindex: ours.noindexMeta,
      jsonLdBlocks: ours.jsonLd.blocks,
      jsonLdTypes: ours.jsonLd.types,
      h1Count: ours.h1Count,
      openGraph: ours.openGraph,
      wordCount: ours.wordCount,
    }).toEqual(reference);
  });
});

describe('what the corpus pins down (known answers)', () => {
  const facts = (name: string) => extractPage(corpusPage(name), URL_, noHeaders, false);

  it('a Chinese news page (qq): its title, and its words counted by dictionary, not by spaces', () => {
    const qq = facts('qq');
    expect(qq).toMatchObject({ title: 'DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶_科技_腾讯网', lang: null, h1Count: 1, wordCount: 854 });
  });

  it('a Japanese page (yahoo-4) and a Traditional Chinese blog (pixnet) declare their language', () => {
    expect(facts('yahoo-4')).toMatchObject({ lang: 'ja', wordCount: 1493 });
    expect(facts('pixnet')).toMatchObject({ lang: 'zh-TW', wordCount: 6331 });
  });

  it('the largest page (yahoo-2, 1.6 MB) is read whole', () => {
    const yahoo = facts('yahoo-2');
    expect(yahoo).toMatchObject({ truncated: false, incomplete: [], wordCount: 3109 });
  });

  it('JSON-LD types nested in an entity count (engadget: a Review inside an Article)', () => {
    expect(facts('engadget').jsonLd).toMatchObject({ blocks: 2, invalid: 0, types: ['Article', 'ImageObject', 'Organization', 'Person', 'Rating', 'Review'], keyTypes: ['Organization', 'Article'] });
  });
});
