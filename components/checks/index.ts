import { readinessComponents } from './readiness';
import { visibilityComponents } from './ai-visibility';
import { endpointComponents } from './payment-endpoint';
import type { CheckComponents } from './types';

// THE list of the checks' browser halves, beside lib/checks/registry.ts (the list of their entries): each
// check's report view, its /check tab, its rubric on /docs/checks and its home-page card, from its own folder
// components/checks/<id>/. They are kept apart from the entries because lib imports no React component and the
// browser's bundle must never load a check's `run`; so everything these folders import is browser-safe. The
// pages show the checks in this order, for the checks the registry has.

let listed: readonly CheckComponents[] = [visibilityComponents, readinessComponents, endpointComponents];

/**
 * The browser half of the check with this id (a stored report's check, a tab's check), or null for none.
 * @example checkComponents('readiness')?.report.label // 'Payment Readiness'
 */
export function checkComponents(id: string): CheckComponents | null {
  return listed.find((c) => c.report.id === id) ?? null;
}

/**
 * The browser halves of the checks named, in the order the pages show them; a check without one is left out.
 * @example checksShown(checks().map((c) => c.id)).map((c) => c.report.id) // ['ai-visibility', 'readiness', 'payment-endpoint']
 */
export function checksShown(ids: readonly string[]): readonly CheckComponents[] {
  return listed.filter((c) => ids.includes(c.report.id));
}

/**
 * Adds a check's browser half beside the built-in ones (tests registering a check of their own, with
 * registerCheck for its entry); returns how to take it away again.
 * @example const unregister = registerCheckComponents(echoComponents); afterAll(unregister);
 */
export function registerCheckComponents(components: CheckComponents): () => void {
  if (checkComponents(components.report.id)) throw new Error(`check "${components.report.id}" already has its components`);
  listed = [...listed, components];
  return () => {
    listed = listed.filter((c) => c !== components);
  };
}
