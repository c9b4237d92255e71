import { checkRoutes } from '@/lib/transports/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// Worst case on a 402 rail: verify (10 s) + the check (up to 20 s for a check that fetches a site) + settlement (up to 60 s).
export const maxDuration = 120;

// Every check in lib/checks/registry.ts, by its id: POST runs it as a paid call, GET describes it.
export const { POST, GET } = checkRoutes;
