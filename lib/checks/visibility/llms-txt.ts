// /llms.txt as the check reads it (llmstxt.org): a Markdown file with an H1 title first, a > summary,
// and H2 sections of [name](url) links. A 2xx HTML page at that address is a soft 404, not the file.

type LlmsTxtLevel = 'valid' | 'partial' | 'invalid' | 'missing' | 'error';

export interface LlmsTxtAssessment {
  /**
   * What the report shows: a non-HTML 2xx body is "found", anything else "missing"; the report's own reading
   * (soft-404.ts) adds "soft-404" for the site's catch-all page and keeps "found" for a file with an H1.
   */
  state: 'found' | 'missing' | 'soft-404';
  level: LlmsTxtLevel;
  status: number | null;
  /** Why it is not valid, in plain words; empty when valid. */
  problems: string[];
}

/**
 * Whether a response is an HTML page: its content type says so, or its body opens (after whitespace or
 * a byte-order mark) with an HTML doctype or an <html> tag, the first two HTML signatures of WHATWG MIME
 * sniffing. Only the opening counts, and only those two: a Markdown file may mention `<html>` further
 * down or open with an HTML comment, and calling it a page would cost the site its llms.txt.
 * @example isHtml('text/plain', '<!DOCTYPE html><title>Not found</title>') // true
 * @example isHtml('text/plain', '# Site\n> We render <html> for you.') // false
 */
export function isHtml(contentType: string | null, body: string): boolean {
  if (contentType && /text\/html|application\/xhtml/i.test(contentType)) return true;
  return /^\s*<(?:!doctype\s+html|html)[\s>]/i.test(body.slice(0, 1024));
}

/**
 * `[name](url)`. Neither part may contain a bracket, so a failed attempt never scans past the next
 * possible start and the search stays linear; the earlier form was cubic (one 16 KB line took 94 s).
 */
const MARKDOWN_LINK = /\[[^[\]]+\]\([^\s()[\]][^)[\]]*\)/;

/**
 * Classifies a /llms.txt answer (research: llms-txt validation levels). A 2xx HTML page is a soft 404, not a file.
 * @example assessLlmsTxt(200, 'text/markdown', '# Site\n> Widgets.\n## Docs\n- [Guide](https://site.test/guide)\n').level // 'valid'
 */
export function assessLlmsTxt(status: number | null, contentType: string | null, body: string | null): LlmsTxtAssessment {
  if (status === null) return { state: 'missing', level: 'error', status, problems: ['/llms.txt could not be fetched'] };
  if (status >= 400 && status < 500) return { state: 'missing', level: 'missing', status, problems: [`/llms.txt answered ${status}`] };
  if (status < 200 || status >= 300) return { state: 'missing', level: 'error', status, problems: [`/llms.txt answered ${status}`] };
  const text = body ?? '';
  if (isHtml(contentType, text)) {
    return { state: 'missing', level: 'error', status, problems: ['/llms.txt answered with an HTML page, not a Markdown file'] };
  }
  const lines = text.split(/\r\n|\r|\n/);
  const firstLine = lines.find((l) => l.trim() !== '') ?? '';
  if (!/^#\s+\S/.test(firstLine)) {
    const hasH1 = lines.some((l) => /^#\s+\S/.test(l));
    return {
      state: 'found',
      level: 'invalid',
      status,
      problems: [hasH1 ? 'the first non-blank line is not the H1 title' : 'there is no H1 title line (# Name)'],
    };
  }
  const problems: string[] = [];
  if (!lines.some((l) => /^>\s?\S/.test(l))) problems.push('no > blockquote summary');
  let inH2 = false;
  let linkInH2 = false;
  for (const l of lines) {
    if (/^##\s+\S/.test(l)) inH2 = true;
    else if (/^#\s/.test(l)) inH2 = false;
    else if (inH2 && MARKDOWN_LINK.test(l)) {
      linkInH2 = true;
      break;
    }
  }
  if (!linkInH2) problems.push('no H2 section with a [name](url) link list');
  return { state: 'found', level: problems.length === 0 ? 'valid' : 'partial', status, problems };
}
