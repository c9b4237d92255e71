// Content: what the HTML as served says about the page (title, description, text, headings, language).

import type { RubricItem } from './types';

function isWellFormedLang(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/**
 * The content items, in published order.
 * @example CONTENT_ITEMS.map((item) => item.id) // ['meta.title', 'meta.description', 'content.text', 'content.h1', 'content.lang']
 */
export const CONTENT_ITEMS: readonly RubricItem[] = [
  {
    id: 'meta.title',
    category: 'content',
    points: 5,
    criterion:
      'A <title> of 10-70 characters (present but outside that range: 3 points).',
    evaluate(input, points) {
      const { title, titleLength } = input.page;
      if (!title) {
        return {
          earned: 0,
          finding: {
            id: 'title-missing',
            severity: 'medium',
            observed: title === null ? 'no <title> element' : 'empty <title></title>',
            why: 'The title is the headline of the page in search results and the main label AI answers use when they cite it.',
            fix: 'Add a <title> of 10-70 characters that names the page\'s subject (and the site), e.g. "<Topic> - <Brand>".',
          },
        };
      }
      if (titleLength >= 10 && titleLength <= 70) return { earned: points };
      return {
        earned: 3,
        finding: {
          id: 'title-length',
          severity: 'low',
          observed: `<title>${title}</title> (${titleLength} characters)`,
          why: titleLength < 10 ? 'A very short title says little about the page.' : 'Titles over about 70 characters are cut in search results.',
          fix: 'Rewrite the <title> to 10-70 characters, leading with the page\'s subject.',
        },
      };
    },
  },
  {
    id: 'meta.description',
    category: 'content',
    points: 3,
    criterion:
      'A meta description of 50-170 characters (present but outside that range: 2 points).',
    evaluate(input, points) {
      const { metaDescription, metaDescriptionLength } = input.page;
      if (!metaDescription) {
        return {
          earned: 0,
          finding: {
            id: 'description-missing',
            severity: 'low',
            observed: metaDescription === null ? 'no <meta name="description">' : '<meta name="description" content="">',
            why: 'Without a description, search engines and link previews pick arbitrary text from the page.',
            fix: 'Add <meta name="description" content="..."> with a 50-170 character summary of the page.',
          },
        };
      }
      if (metaDescriptionLength >= 50 && metaDescriptionLength <= 170) return { earned: points };
      return {
        earned: 2,
        finding: {
          id: 'description-length',
          severity: 'low',
          observed: `<meta name="description" content="${metaDescription}"> (${metaDescriptionLength} characters)`,
          why: metaDescriptionLength < 50 ? 'A very short description is usually replaced by text picked from the page.' : 'Descriptions over about 170 characters are cut in search results.',
          fix: 'Rewrite the meta description to 50-170 characters.',
        },
      };
    },
  },
  {
    id: 'content.text',
    category: 'content',
    points: 8,
    criterion:
      'At least 250 words of text in the HTML as served, outside script, style, noscript, template and svg (80-249 words: 4 points). Most AI fetchers do not run JavaScript.',
    evaluate(input, points) {
      const { wordCount } = input.page;
      if (wordCount >= 250) return { earned: points };
      const partial = wordCount >= 80;
      return {
        earned: partial ? 4 : 0,
        finding: {
          id: partial ? 'thin-server-text' : 'little-server-text',
          severity: partial ? 'medium' : 'high',
          observed: `${wordCount} words of text in the HTML as served (${input.page.textLength} characters)${input.page.incomplete.includes('wordCount') ? ', counted in the part of the page that was read: the page was cut, so it may have more' : ''}`,
          why: 'Most AI fetchers (Common Crawl says so explicitly) do not run JavaScript, so text that only appears after scripts run is invisible to them; a page with little served text gives them little to index or quote.',
          fix: 'Render the main content on the server (SSR or static generation) so the HTML response carries the text; aim for at least 250 words of real content.',
        },
      };
    },
  },
  {
    id: 'content.h1',
    category: 'content',
    points: 2,
    criterion:
      'Exactly one <h1> (several: 1 point).',
    evaluate(input, points) {
      const { h1Count } = input.page;
      if (h1Count === 1) return { earned: points };
      return {
        earned: h1Count > 1 ? 1 : 0,
        finding: {
          id: h1Count > 1 ? 'h1-multiple' : 'h1-missing',
          severity: 'low',
          observed: `${h1Count} <h1> elements${input.page.incomplete.includes('h1Count') ? ' in the part of the page that was read (the page was cut; more may follow)' : ''}`,
          why: 'One <h1> states what the page is about; none or several make the main topic harder to extract.',
          fix: h1Count > 1 ? 'Keep one <h1> for the page title and turn the others into <h2>.' : 'Add one <h1> with the page\'s main heading.',
        },
      };
    },
  },
  {
    id: 'content.lang',
    category: 'content',
    points: 2,
    criterion:
      '<html lang> is present and a well-formed BCP 47 language tag.',
    evaluate(input, points) {
      const { lang } = input.page;
      if (lang !== null && isWellFormedLang(lang)) return { earned: points };
      return {
        earned: 0,
        finding: {
          id: lang === null ? 'lang-missing' : 'lang-invalid',
          severity: 'low',
          observed: lang === null ? '<html> has no lang attribute' : `<html lang="${lang}">`,
          why: 'The lang attribute tells crawlers which language the page is in, so it is served to readers of that language.',
          fix: 'Set <html lang="..."> to the page\'s language as a BCP 47 tag, e.g. lang="en" or lang="de-CH".',
        },
      };
    },
  },];
