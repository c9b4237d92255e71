// One rule for "this site file is an HTML page, not the text file asked for", used for llms.txt and
// llms-full.txt alike. Before, llms.txt used a looser rule (any doctype, or "<html" anywhere in the first
// KiB) than llms-full.txt; these are the cases where the two disagreed.
import { describe, expect, it } from 'vitest';
import { analyseSite, type FetchedFile } from '@/lib/checks/visibility/analysis';
import { assessLlmsTxt, isHtml } from '@/lib/checks/visibility/llms-txt';

const MARKDOWN_MENTIONING_HTML = '# Site\n\n> We render <html> pages on the server.\n\n## Docs\n\n- [Guide](https://site.test/guide): the guide\n';
const XML_DOCTYPE = '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg></svg>';
const COMMENT_FIRST = '<!-- generated --><html><body>Not found</body></html>';
const ELEMENT_NAME_PREFIX = '<htmlish>not an html element</htmlish>';

function file(body: string, contentType = 'text/plain'): FetchedFile {
  return { status: 200, contentType, body, bytesRead: body.length, truncated: false };
}

/** What the report says about llms.txt and llms-full.txt when both answer with the same bytes. */
function siteFilesState(body: string): { llmsTxt: string; llmsFullTxt: string } {
  const missing: FetchedFile = { status: 404, contentType: 'text/plain', body: '', bytesRead: 0, truncated: false };
  const analysis = analyseSite(
    { url: 'https://site.test/', status: 200, headers: [['content-type', 'text/html']], body: '<!doctype html><title>Home page</title>', truncated: false, redirects: 0 },
    { robots: missing, sitemap: { ...missing, url: null }, sitemapChild: null, llms: file(body), llmsFull: file(body), llmsLinks: [], tdmrep: missing, httpRedirectsToHttps: true },
  );
  return { llmsTxt: analysis.signals.siteFiles.llmsTxt.state, llmsFullTxt: analysis.signals.siteFiles.llmsFullTxt.state };
}

describe('isHtml', () => {
  it('reads the content type first', () => {
    expect(isHtml('text/html; charset=utf-8', '# Markdown')).toBe(true);
    expect(isHtml('application/xhtml+xml', '')).toBe(true);
  });

  it('sniffs an HTML doctype or <html> at the start, after whitespace or a byte-order mark', () => {
    expect(isHtml('text/plain', '<!DOCTYPE html><title>Not found</title>')).toBe(true);
    expect(isHtml(null, '\uFEFF\n  <!doctype HTML PUBLIC "-//W3C//DTD HTML 4.01//EN">')).toBe(true);
    expect(isHtml('text/plain', '<html lang="en">')).toBe(true);
    expect(isHtml('text/plain', '<HTML>')).toBe(true);
  });

  it.each([
    ['Markdown that mentions <html> after its first line', MARKDOWN_MENTIONING_HTML],
    ['a doctype that is not HTML', XML_DOCTYPE],
    ['a comment before the <html> tag', COMMENT_FIRST],
    ['a tag whose name only starts with "html"', ELEMENT_NAME_PREFIX],
  ])('does not take %s for a page', (_name, body) => {
    expect(isHtml('text/plain', body)).toBe(false);
  });
});

describe('llms.txt and llms-full.txt read HTML the same way', () => {
  it('keeps a valid llms.txt that mentions <html> in its summary', () => {
    expect(assessLlmsTxt(200, 'text/plain', MARKDOWN_MENTIONING_HTML)).toEqual({ state: 'found', level: 'valid', status: 200, problems: [] });
  });

  it('reads a file that is neither Markdown nor an HTML page as an invalid llms.txt, not a missing one', () => {
    expect(assessLlmsTxt(200, 'text/plain', XML_DOCTYPE)).toEqual({
      state: 'found',
      level: 'invalid',
      status: 200,
      problems: ['there is no H1 title line (# Name)'],
    });
  });

  // Only an HTML page is missing for both; anything else is a file, found, or for llms.txt without an H1 invalid.
  it.each([
    ['a doctype-first HTML page', '<!DOCTYPE html><title>Not found</title>', 'missing', 'missing'],
    ['Markdown mentioning <html>', MARKDOWN_MENTIONING_HTML, 'found', 'found'],
    ['a non-HTML doctype', XML_DOCTYPE, 'invalid', 'found'],
    ['a comment before <html>', COMMENT_FIRST, 'invalid', 'found'],
    ['<htmlish>', ELEMENT_NAME_PREFIX, 'invalid', 'found'],
  ])('%s: HTML is told the same way for both files', (_name, body, llmsTxt, llmsFullTxt) => {
    expect(siteFilesState(body)).toEqual({ llmsTxt, llmsFullTxt });
  });
});
