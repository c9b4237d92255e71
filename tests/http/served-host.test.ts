// The MCP endpoint's DNS rebinding defence: the Host a request names must be one this service is published at.
import { describe, expect, it } from 'vitest';
import { hostProblem } from '@/lib/http/served-host';

const at = (url: string, host?: string) => new Request(url, { method: 'POST', headers: host === undefined ? {} : { host } });
const config = (APP_URL: string, MCP_ALLOWED_HOSTS?: string) => ({ APP_URL, MCP_ALLOWED_HOSTS });

describe('hostProblem', () => {
  it("answers at APP_URL's host, in any case and with the scheme's default port written out", () => {
    const app = config('https://checks.example');
    expect(hostProblem(at('https://checks.example/api/mcp', 'checks.example'), app)).toBeNull();
    expect(hostProblem(at('https://checks.example/api/mcp', 'Checks.Example:443'), app)).toBeNull();
  });

  it('refuses any other host with 403 wrong-host, naming the host it answers at', () => {
    const refused = hostProblem(at('http://127.0.0.1:3000/api/mcp', 'evil.example.com'), config('http://127.0.0.1:3000'));
    expect(refused).toMatchObject({ status: 403, type: expect.stringMatching(/wrong-host$/) });
    expect(refused!.detail).toBe('This MCP endpoint answers at 127.0.0.1:3000; a request naming another host (evil.example.com) is refused as a possible DNS rebinding.');
    // Another port of the same name is another listener.
    expect(hostProblem(at('https://checks.example/api/mcp', 'checks.example:8443'), config('https://checks.example'))?.status).toBe(403);
  });

  it('takes localhost, 127.0.0.1 and [::1] on one port for the same listener', () => {
    const app = config('http://localhost:3000');
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000']) expect(hostProblem(at('http://localhost:3000/api/mcp', host), app)).toBeNull();
    expect(hostProblem(at('http://localhost:3000/api/mcp', '127.0.0.1:3001'), app)?.status).toBe(403);
  });

  it('answers at the hosts MCP_ALLOWED_HOSTS adds, and judges a request without Host by its URL', () => {
    const app = config('https://checks.example', ' mcp.checks.example , other.example:8080');
    expect(hostProblem(at('https://x/api/mcp', 'mcp.checks.example'), app)).toBeNull();
    expect(hostProblem(at('https://x/api/mcp', 'other.example:8080'), app)).toBeNull();
    expect(hostProblem(at('https://x/api/mcp', 'other.example'), app)?.status).toBe(403);
    expect(hostProblem(at('https://checks.example/api/mcp'), app)).toBeNull();
  });
});
