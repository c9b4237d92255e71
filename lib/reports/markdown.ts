import { checkMarkdown } from '@/lib/checks/entry';
import { checkById } from '@/lib/checks/registry';

// A paid answer as Markdown: the MCP tool's text content (many chat clients show the model only the text,
// never structuredContent) and the site's "Copy as Markdown". Each check writes its own (its entry's
// `markdown`); checkMarkdown adds what every answer says.

/**
 * A check's 200 body as a short Markdown summary (its score or verdict, its top findings), by the check's id.
 * @example reportMarkdown(check.id, body) // the check's own Markdown, then where the full result is
 */
export function reportMarkdown(checkId: string, body: unknown): string {
  const check = checkById(checkId);
  if (!check) throw new Error(`no check "${checkId}"`);
  return checkMarkdown(check, body);
}
