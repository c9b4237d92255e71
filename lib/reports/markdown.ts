import { checkMarkdown } from '@/lib/checks/entry';
import { checkById } from '@/lib/checks/registry';

// A paid answer as Markdown: the MCP tool's text content (many chat clients show the model only the text,
// never structuredContent) and the site's "Copy as Markdown". Each check writes its own (its entry's
// `markdown`); checkMarkdown adds what every answer says (when it was made, where it lives).

/**
 * A check's 200 body as Markdown (its score or verdict, the fixes to make first, every finding, the date, and
 * the report's permanent address when given), by the check's id.
 * @example reportMarkdown(check.id, body, 'https://checks.example/reports/rep_…') // the check's own Markdown, dated, with its address
 */
export function reportMarkdown(checkId: string, body: unknown, permalink?: string): string {
  const check = checkById(checkId);
  if (!check) throw new Error(`no check "${checkId}"`);
  return checkMarkdown(check, body, permalink);
}
