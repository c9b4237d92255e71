import type { Severity } from '@/lib/checks/severity';

export { READINESS_VERDICT } from '@/lib/checks/readiness/labels';

export const SEVERITY_LABEL: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };
