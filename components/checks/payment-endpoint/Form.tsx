'use client';

import { useState, type FormEvent } from 'react';
import type { CheckFormProps } from '../types';
import './payment-endpoint.css';

// The endpoint check's request as a form: the paid resource and its method, an optional example body, an
// optional MCP endpoint and tool, and whether to pay once for real. The API is the judge of an address (its
// 400 is shown under the field it names); the form refuses only what cannot be sent: no address, a body that
// is not JSON or is larger than the API reads, half an MCP pair.

/** The largest example body the API reads, serialised (lib/checks/payment-endpoint/entry.ts). */
const MAX_BODY_BYTES = 16 * 1024;
const MAX_URL_LENGTH = 2000;
const MAX_TOOL_LENGTH = 128;

interface EndpointFormState {
  url: string;
  method: 'POST' | 'GET';
  body: string;
  mcpUrl: string;
  mcpTool: string;
  paidRoundTrip: boolean;
}

const EMPTY: EndpointFormState = { url: '', method: 'POST', body: '', mcpUrl: '', mcpTool: '', paidRoundTrip: false };

/**
 * Field id → what is wrong with it, in words; empty when the form can be sent.
 * @example validateEndpointForm({ url: 'api.example.com/paid', method: 'POST', body: '{', mcpUrl: '', mcpTool: '', paidRoundTrip: false }).body // 'Not JSON: …'
 */
export function validateEndpointForm(form: EndpointFormState): Record<string, string> {
  const errors: Record<string, string> = {};
  const url = form.url.trim();
  if (!url) errors.url = 'Required: enter the address of the paid endpoint.';
  else if (url.length > MAX_URL_LENGTH) errors.url = `Too long: at most ${MAX_URL_LENGTH} characters (now ${url.length}).`;
  if (form.body.trim()) {
    if (form.method === 'GET') errors.body = 'A GET request carries no body: clear it, or choose POST.';
    else {
      try {
        const size = new TextEncoder().encode(JSON.stringify(JSON.parse(form.body))).length;
        if (size > MAX_BODY_BYTES) errors.body = `Too large: at most ${MAX_BODY_BYTES / 1024} KB of JSON (now ${Math.ceil(size / 1024)} KB).`;
      } catch (error) {
        errors.body = `Not JSON: ${error instanceof Error ? error.message : 'it does not parse'}.`;
      }
    }
  }
  const mcpUrl = form.mcpUrl.trim();
  const mcpTool = form.mcpTool.trim();
  if (mcpUrl && !mcpTool) errors.mcpTool = 'Required with an MCP endpoint: name the paid tool to check.';
  if (mcpTool && !mcpUrl) errors.mcpUrl = 'Required with a tool: enter the MCP endpoint it is served at.';
  if (mcpUrl.length > MAX_URL_LENGTH) errors.mcpUrl = `Too long: at most ${MAX_URL_LENGTH} characters.`;
  if (mcpTool.length > MAX_TOOL_LENGTH) errors.mcpTool = `Too long: at most ${MAX_TOOL_LENGTH} characters.`;
  return errors;
}

/**
 * The API request a valid form sends: the body only for POST, the MCP pair only when given.
 * @example endpointRequest({ url: ' api.example.com/paid ', method: 'GET', body: '', mcpUrl: '', mcpTool: '', paidRoundTrip: false }) // { url: 'api.example.com/paid', method: 'GET', paidRoundTrip: false }
 */
export function endpointRequest(form: EndpointFormState): Record<string, unknown> {
  const mcpUrl = form.mcpUrl.trim();
  return {
    url: form.url.trim(),
    method: form.method,
    ...(form.method === 'POST' && form.body.trim() ? { body: JSON.parse(form.body) as unknown } : {}),
    ...(mcpUrl ? { mcp: { url: mcpUrl, tool: form.mcpTool.trim() } } : {}),
    paidRoundTrip: form.paidRoundTrip,
  };
}

/** The server's 400 `errors` (JSON paths) as field id → message. */
function fieldErrors(serverErrors: CheckFormProps['serverErrors']): Record<string, string> {
  const fields: Record<string, string> = {};
  const field: Record<string, string> = { '$.url': 'url', '$.method': 'method', '$.body': 'body', '$.mcp.url': 'mcpUrl', '$.mcp.tool': 'mcpTool', '$.mcp': 'mcpUrl', '$.paidRoundTrip': 'paidRoundTrip' };
  for (const e of serverErrors) fields[field[e.path] ?? (e.path.startsWith('$.body') ? 'body' : 'url')] ??= e.message;
  return fields;
}

export function EndpointForm({ example, busy, serverErrors, onSubmit }: CheckFormProps) {
  const [form, setForm] = useState<EndpointFormState>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const shown = { ...fieldErrors(serverErrors), ...errors };

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validateEndpointForm(form);
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) {
      document.getElementById(`endpoint-${first}`)?.focus();
      return;
    }
    onSubmit(endpointRequest(form));
  }

  function fillExample() {
    const e = (example ?? {}) as { url?: string; method?: 'GET' | 'POST'; body?: unknown; paidRoundTrip?: boolean };
    setForm({ ...EMPTY, url: e.url ?? '', method: e.method ?? 'POST', body: e.body === undefined ? '' : JSON.stringify(e.body, null, 2), paidRoundTrip: e.paidRoundTrip ?? false });
    setErrors({});
  }

  const set = (patch: Partial<EndpointFormState>) => setForm((f) => ({ ...f, ...patch }));
  const describedBy = (id: string, hint?: string) => (shown[id] ? { 'aria-invalid': true as const, 'aria-describedby': `endpoint-${id}-error` } : hint ? { 'aria-describedby': hint } : {});
  const err = (id: string) =>
    shown[id] ? (
      <p id={`endpoint-${id}-error`} className="field-error">
        {shown[id]}
      </p>
    ) : null;

  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby="endpoint-form-title">
      <h2 id="endpoint-form-title">Agent Payment Endpoint Check</h2>
      <p className="muted">
        We call your paid endpoint as a paying agent does: unpaid first, then with malformed and expired credentials, and read both
        protocols&apos; terms, your discovery documents, CORS and your MCP endpoint, scored against the{' '}
        <a href="/docs/checks#payment-endpoint-rubric">published rubric</a>. Every request we send is listed in the report. An endpoint that
        gives no HTTP answer at all is not charged.
      </p>
      <div className="actions">
        <button type="button" className="button secondary" onClick={fillExample}>
          Fill with an example
        </button>
      </div>
      <div>
        <label htmlFor="endpoint-url">Paid endpoint address</label>
        <input
          id="endpoint-url" name="url" type="text" inputMode="url" autoComplete="url" autoCapitalize="none" spellCheck={false}
          placeholder="api.example.com/paid/route" value={form.url} onChange={(e) => set({ url: e.target.value })}
          {...describedBy('url', 'endpoint-url-hint')}
        />
        {err('url') ?? (
          <p id="endpoint-url-hint" className="hint">
            The address an agent calls and pays. Without a scheme it is checked over https://.
          </p>
        )}
      </div>
      <fieldset>
        <legend>Method</legend>
        {(['POST', 'GET'] as const).map((m) => (
          <label key={m} className="radio">
            <input type="radio" name="endpoint-method" value={m} checked={form.method === m} onChange={() => set({ method: m })} /> {m}
          </label>
        ))}
      </fieldset>
      <div>
        <label htmlFor="endpoint-body">
          Example JSON body <span className="hint">(optional; POST only; at most {MAX_BODY_BYTES / 1024} KB)</span>
        </label>
        <textarea
          id="endpoint-body" rows={5} spellCheck={false} className="pe-body" value={form.body} placeholder={'{ "query": "…" }'}
          onChange={(e) => set({ body: e.target.value })} {...describedBy('body', 'endpoint-body-hint')}
        />
        {err('body') ?? (
          <p id="endpoint-body-hint" className="hint">
            Left empty, we send the example your OpenAPI document or x402 bazaar extension states, else <code>{'{}'}</code>.
          </p>
        )}
      </div>
      <fieldset>
        <legend>
          MCP endpoint <span className="hint">(optional)</span>
        </legend>
        <div>
          <label htmlFor="endpoint-mcpUrl">MCP endpoint address</label>
          <input
            id="endpoint-mcpUrl" type="text" inputMode="url" autoCapitalize="none" spellCheck={false} placeholder="api.example.com/mcp"
            value={form.mcpUrl} onChange={(e) => set({ mcpUrl: e.target.value })} {...describedBy('mcpUrl')}
          />
          {err('mcpUrl')}
        </div>
        <div>
          <label htmlFor="endpoint-mcpTool">Paid tool name</label>
          <input
            id="endpoint-mcpTool" type="text" autoCapitalize="none" spellCheck={false} placeholder="search_paid"
            value={form.mcpTool} onChange={(e) => set({ mcpTool: e.target.value })} {...describedBy('mcpTool')}
          />
          {err('mcpTool')}
        </div>
        <p className="hint">Without one, we still try /api/mcp and /mcp on the endpoint&apos;s own origin.</p>
      </fieldset>
      <div>
        <label className="radio" htmlFor="endpoint-paidRoundTrip">
          <input id="endpoint-paidRoundTrip" type="checkbox" checked={form.paidRoundTrip} onChange={(e) => set({ paidRoundTrip: e.target.checked })} aria-describedby="endpoint-paidRoundTrip-hint" />
          Pay the endpoint once for real
        </label>
        <p id="endpoint-paidRoundTrip-hint" className="hint">
          We pay from our own probe wallet, only on the test networks this service enables for probing (never a card, never your money), then
          check the settlement on chain, a replay, a payment-identifier and a payment sent with invalid input. Left unticked, nothing is paid.
        </p>
        {err('paidRoundTrip')}
      </div>
      <div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Checking… (up to two minutes)' : 'Run the check (1 call)'}
        </button>
      </div>
    </form>
  );
}
