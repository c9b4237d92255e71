import { getRuntime } from '@/lib/runtime';
import { answerWithProblems } from '@/lib/problems';
import { observed } from '@/lib/http/observe';
import { signaturesDirectoryResponse } from '@/lib/http/signatures-directory';
import { processBotIdentity } from '@/lib/outbound/web-bot-auth';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = observed('signatures-directory', () =>
  answerWithProblems({ route: 'signatures-directory', log: (event) => getRuntime().log(event) }, async () => {
    const { config } = getRuntime();
    return signaturesDirectoryResponse(await processBotIdentity({ WEB_BOT_AUTH_KEY: config.WEB_BOT_AUTH_KEY, APP_URL: config.APP_URL }));
  }),
);
