import type { CheckEntry } from './entry';
import { readinessCheck } from './readiness/entry';
import { visibilityCheck } from './visibility/entry';
import { endpointCheck } from './payment-endpoint/entry';

// THE list of checks. Every surface reads it: the REST and site routes resolve their `[check]` segment here,
// the MCP tools, OpenAPI, the docs, /llms.txt and the home page list it, stored reports and their Markdown
// find their check here by id. Adding a check is adding its entry to BUILT_IN.

const BUILT_IN: readonly CheckEntry[] = [readinessCheck, visibilityCheck, endpointCheck];

let listed: readonly CheckEntry[] = BUILT_IN;

/**
 * Every check, in the order the surfaces list them.
 * @example checks().map((c) => c.id) // ['readiness', 'ai-visibility']
 */
export function checks(): readonly CheckEntry[] {
  return listed;
}

/**
 * The check with this public name, or undefined.
 * @example checkById('readiness')?.toolName // 'agent_payment_readiness_assessment'
 */
export function checkById(id: string): CheckEntry | undefined {
  return listed.find((c) => c.id === id);
}

const NUMBER_WORDS = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'];

/**
 * How many checks there are, as prose opens a sentence with it.
 * @example checksInWords() // 'Two'
 */
export function checksInWords(): string {
  return NUMBER_WORDS[listed.length] ?? String(listed.length);
}

/**
 * The checks' full names as one phrase, each with its article unless told not to, in registry order.
 * @example checkServicesInWords() // 'an Agent Payment Readiness Assessment and an AI Visibility Check'
 * @example checkServicesInWords({ articles: false }) // 'Agent Payment Readiness Assessment and AI Visibility Check'
 */
export function checkServicesInWords({ articles = true }: { articles?: boolean } = {}): string {
  const names = listed.map((c) => (articles ? `${/^[AEIOU]/i.test(c.service) ? 'an' : 'a'} ${c.service}` : c.service));
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
}

/**
 * Adds a check beside the built-in ones and returns how to take it away again: for tests, which prove with a
 * check of their own that the surfaces need nothing but the entry. Its id, tool name and operation id must be new.
 * @example const unregister = registerCheck(echoCheck); afterAll(unregister);
 */
export function registerCheck(entry: CheckEntry): () => void {
  const taken = listed.find((c) => c.id === entry.id || c.toolName === entry.toolName || c.operationId === entry.operationId);
  if (taken) throw new Error(`check "${entry.id}" collides with "${taken.id}"`);
  listed = [...listed, entry];
  return () => {
    listed = listed.filter((c) => c !== entry);
  };
}
