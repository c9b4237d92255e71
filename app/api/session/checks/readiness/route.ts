import { readinessOperation } from '@/lib/operations';
import { sessionCheckPost } from '@/lib/session/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const POST = sessionCheckPost(readinessOperation);
