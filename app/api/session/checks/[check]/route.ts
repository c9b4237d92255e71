import { sessionCheckPost } from '@/lib/transports/site';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

// Every check in lib/checks/registry.ts, by its id, paid with the signed-in key.
export const POST = sessionCheckPost;
