// The handlers of /api/agent/[check] and /api/session/checks/[check] bound to one check, as Next calls them
// for that check's path: tests call a check's route as they would a route file of its own.
import * as agentRoute from '@/app/api/agent/[check]/route';
import * as siteRoute from '@/app/api/session/checks/[check]/route';

const params = (check: string) => ({ params: Promise.resolve({ check }) });

/** POST and GET of /api/agent/<check>. */
export function agentCheckRoute(check: string) {
  return {
    POST: (request: Request) => agentRoute.POST(request, params(check)),
    GET: (request?: Request) => agentRoute.GET(request, params(check)),
  };
}

/** POST of /api/session/checks/<check>. */
export function siteCheckRoute(check: string) {
  return { POST: (request: Request) => siteRoute.POST(request, params(check)) };
}
