import type { ComponentType } from 'react';
import type { CheckReport } from '@/lib/checks/entry';
import { readinessReport } from '@/lib/checks/readiness/report';
import { visibilityReport } from '@/lib/checks/visibility/report';
import type { Level } from './parts';
import { ReadinessReportView } from './ReadinessReport';
import { VisibilityReportView } from './VisibilityReport';

// Each check's report view, by its id: the one part of a check that is not in its entry (lib/checks/<name>/
// entry.ts), because lib imports no React component and the browser must not load a check's `run`. A view
// comes with its check's CheckReport (the client-safe part of the entry: label, shape, Markdown, headline).

export interface CheckView {
  report: CheckReport;
  /** The body of the report, below the header, exports and top fixes that ReportView draws for every check. */
  View: ComponentType<{ body: unknown; level: Level; idPrefix: string }>;
}

let views: readonly CheckView[] = [
  { report: readinessReport, View: ReadinessReportView },
  { report: visibilityReport, View: VisibilityReportView },
];

/**
 * The view for a 200 body (or a stored report), by which check's shape it has; null for anything else.
 * @example reportViewOf(exampleReadinessBody())?.report.id // 'readiness'
 */
export function reportViewOf(body: unknown): CheckView | null {
  return views.find((v) => v.report.matches(body)) ?? null;
}

/**
 * Adds a check's view beside the built-in ones (tests registering a check of their own); returns how to take
 * it away again.
 * @example const unregister = registerReportView({ report: echoReport, View: EchoView }); afterAll(unregister);
 */
export function registerReportView(view: CheckView): () => void {
  views = [...views, view];
  return () => {
    views = views.filter((v) => v !== view);
  };
}
