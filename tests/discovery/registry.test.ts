import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validate } from 'mppx/discovery';
import { openApiDocument } from '@/lib/discovery/openapi';
import { llmsTxt } from '@/lib/discovery/llms';
import { endpoints } from '@/lib/endpoints';
import { checks } from '@/lib/checks/registry';
import { LIST_PAID_SERVICES } from '@/lib/transports/mcp/tools';
import { BASE_USDC_ADDRESS } from '@/lib/config';

// The registry is the one list of endpoints: these tests walk app/ for route files, so a route added
// without an entry, or an entry left behind by a removed route, fails here.

const APP = path.resolve(__dirname, '../../app');
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const ctx = { appUrl: 'https://checks.example', rails: ['stripe', 'evm', 'x402'], usdcAddress: BASE_USDC_ADDRESS, contactEmail: 'support@checks.example' };

type Operation = { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };

/** Every app route file as its URL path (`app/api/health/route.ts` -> `/api/health`). */
function routeFiles(dir = APP): Array<{ file: string; urlPath: string }> {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    if (entry.name !== 'route.ts') return [];
    // A `[check]` segment is one path per check in the registry (each documented as its own operation); any other
    // dynamic segment `[id]` is the path parameter `{id}` of OpenAPI.
    const segments = path.relative(APP, dir).split(path.sep);
    const urlPath = (check?: string) => '/' + segments.map((s) => (s === '[check]' && check ? check : s.replace(/^\[(\w+)\]$/, '{$1}'))).join('/');
    if (!segments.includes('[check]')) return [{ file: full, urlPath: urlPath() }];
    return checks().map((c) => ({ file: full, urlPath: urlPath(c.id) }));
  });
}

async function exportedMethods(file: string): Promise<string[]> {
  const mod = (await import(file)) as Record<string, unknown>;
  return HTTP_METHODS.filter((m) => typeof mod[m] === 'function');
}

/** A schema that says something: not missing, not `{}`, not a bare `{ type: 'object' }`. */
function isRealSchema(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return false;
  if (schema.type === 'string') return true;
  return Boolean(schema.properties || schema.anyOf || schema.oneOf);
}

describe('/openapi.json from the endpoint registry', () => {
  const doc = openApiDocument(ctx) as { paths: Record<string, Record<string, Operation>> };

  it('lists every route under app/api with each method it exports, and a real 200 schema', async () => {
    const apiRoutes = routeFiles().filter((r) => r.urlPath.startsWith('/api/'));
    expect(apiRoutes.map((r) => r.urlPath).sort()).toEqual([
      '/api/agent/ai-visibility', '/api/agent/credits', '/api/agent/payment-endpoint', '/api/agent/readiness', '/api/billing/account', '/api/billing/checkout',
      '/api/billing/portal', '/api/billing/session', '/api/billing/webhook', '/api/health', '/api/mcp', '/api/metrics',
      '/api/reports', '/api/reports/{id}', '/api/reports/{id}/compare/{otherId}', '/api/reports/{id}/har', '/api/reports/{id}/rerun', '/api/reports/{id}/share', '/api/session', '/api/session/checks/ai-visibility',
      '/api/session/checks/payment-endpoint', '/api/session/checks/readiness', '/api/session/rotate',
    ]);
    for (const { file, urlPath } of apiRoutes) {
      const item = doc.paths[urlPath];
      expect(item, urlPath).toBeDefined();
      let answered = 0;
      for (const method of await exportedMethods(file)) {
        const op = item[method.toLowerCase()];
        expect(op, `${method} ${urlPath}`).toBeDefined();
        const ok = op.responses['200'];
        if (ok === undefined && op.responses['204']) {
          // Answered with no body at all (DELETE /api/session): nothing to describe but the status.
          expect(op.responses['204'].content, `${method} ${urlPath}`).toBeUndefined();
          answered++;
          continue;
        }
        if (ok === undefined) {
          // A method exported only to be refused documents exactly that.
          expect(Object.keys(op.responses), `${method} ${urlPath}`).toEqual(['405']);
          continue;
        }
        answered++;
        const media = Object.values(ok.content ?? {});
        expect(media.length, `${method} ${urlPath}`).toBe(1);
        expect(isRealSchema(media[0].schema), `${method} ${urlPath}: ${JSON.stringify(media[0].schema)}`).toBe(true);
      }
      expect(answered, urlPath).toBeGreaterThan(0);
    }
  });

  it('documents the discovery routes outside app/api too, and nothing that has no route', async () => {
    const routes = new Map<string, string[]>();
    for (const { file, urlPath } of routeFiles()) routes.set(urlPath, await exportedMethods(file));
    expect([...routes.keys()].sort()).toEqual(Object.keys(doc.paths).sort());
    for (const [urlPath, methods] of routes) {
      expect(Object.keys(doc.paths[urlPath]).sort(), urlPath).toEqual(methods.map((m) => m.toLowerCase()).sort());
    }
    expect(Object.values(doc.paths['/openapi.json'].get.responses['200'].content!)[0].schema.properties).toHaveProperty('paths');
  });

  it('gives each paid operation its output schema as the 200 schema', () => {
    for (const op of checks()) {
      const schema = doc.paths[op.path].post.responses['200'].content!['application/json'].schema as { required: string[] };
      expect(schema.required).toEqual(expect.arrayContaining(['service', 'idempotencyKey', 'artifactHash']));
    }
  });

  it('passes mppx discovery validation (the check `mppx discover validate` runs)', () => {
    expect(validate(doc).filter((issue) => issue.severity === 'error')).toEqual([]);
  });
});

describe('/llms.txt from the endpoint registry', () => {
  it('names every MCP tool and links the entries that carry an llms.txt line', () => {
    const text = llmsTxt(ctx);
    expect(text).toContain(`tools ${[...checks().map((o) => o.toolName), LIST_PAID_SERVICES].join(', ')}`);
    for (const e of endpoints()) {
      if (e.kind === 'paid') expect(text).toContain(`- [POST ${e.path}](${ctx.appUrl}${e.path}): ${e.operation.service}.`);
      else if (e.llms) expect(text).toContain(`- [${e.llms.label}](${ctx.appUrl}${e.path}): ${e.llms.text}`);
    }
  });
});

describe('docs examples from the endpoint registry', () => {
  it('shows 200 examples that parse with the schema the endpoint declares', () => {
    let checked = 0;
    for (const e of endpoints()) {
      if (e.kind !== 'free') continue;
      for (const example of e.examples(ctx.appUrl)) {
        if (example.status !== 200) continue;
        const parsed = e.ok.schema.safeParse(example.body);
        expect(parsed.success, `${e.method} ${e.path} "${example.description}": ${parsed.error?.message}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  });
});
