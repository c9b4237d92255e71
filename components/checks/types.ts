import type { ComponentType } from 'react';
import type { CheckReport } from '@/lib/checks/entry';
import type { Level } from '@/components/report-view/parts';

// What a check's browser half is: the components and words the site shows of it, beside its entry in
// lib/checks/<id>/ (which holds everything else and imports no component). Each check's folder
// components/checks/<id>/ exports one of these; components/checks/index.ts lists them.

/** What the check page hands a check's form. */
export interface CheckFormProps {
  /** The check's example request (its entry's `example`), for a form that offers to fill itself with it. */
  example: unknown;
  busy: boolean;
  /** The server's 400 `errors` (JSON path and message); the form puts each beside its field. */
  serverErrors: ReadonlyArray<{ path: string; message: string }>;
  onSubmit(body: unknown): void;
}

/** What a report view is handed: the 200 body, the heading level of the report's title and a prefix for its ids. */
export interface CheckViewProps {
  body: unknown;
  level: Level;
  idPrefix: string;
}

/** The check's card and example report on the home page, beyond what its entry says. */
interface CheckShowcase {
  /** The card's text, when it says more than the entry's description. */
  description?: string;
  /** Short facts after the check's path on its card, from what its free GET describes. */
  facts(described: unknown): string[];
  /** Where its example report (the entry's example answer) comes from, as the end of a sentence. */
  source(example: unknown): string;
}

export interface CheckComponents {
  /** The client-safe part of the check's entry: its id, label, headline, verdicts. */
  report: CheckReport;
  /** The body of a report, below the header, exports and top fixes that ReportView draws for every check. */
  View: ComponentType<CheckViewProps>;
  /** Its tab on /check. */
  Form: ComponentType<CheckFormProps>;
  /** Its rubric on /docs/checks, from what its free GET describes (the entry's `describe()`). */
  Rubric: ComponentType<{ described: unknown }>;
  showcase: CheckShowcase;
}
