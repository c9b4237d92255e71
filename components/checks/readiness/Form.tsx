'use client';

import { useState, type FormEvent } from 'react';
import { CAPABILITY_KEYS, CAPABILITY_STATUSES, type CapabilityKey } from '@/lib/checks/readiness/schema';
import { CAPABILITY_GUIDE } from '@/lib/checks/readiness/guide';
import { capabilityTitle, evidenceKindLabel, statusLabel } from '@/lib/checks/readiness/labels';
import type { CheckFormProps } from '../types';
import './readiness.css';

// The readiness request as a form: the workflow and the ten capabilities, each a status and up to five
// evidence lines. Validation says what is wrong in words, field by field, before anything is sent; the
// server validates again (and its 400 is shown too), so the rules here are a courtesy, not the gate.

interface ReadinessExample {
  workflow: { name: string; intendedUsers: string; targetEnvironment: string };
  capabilities: Record<string, { status: string; evidence?: string[] }>;
}

interface FormState {
  name: string;
  intendedUsers: string;
  targetEnvironment: string;
  capabilities: Record<CapabilityKey, { status: string; evidence: string }>;
}

const MAX_NAME = 120;
const MAX_EVIDENCE_LINES = 5;
const MAX_EVIDENCE_CHARS = 240;
/** Where the rubric the form is judged by is published, and its table of evidence kinds. */
const RUBRIC = '/docs/checks#readiness-rubric';
const EVIDENCE_KINDS = '/docs/checks#readiness-evidence';

const empty = (): FormState => ({
  name: '',
  intendedUsers: '',
  targetEnvironment: '',
  capabilities: Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, { status: '', evidence: '' }])) as FormState['capabilities'],
});

function fromExample(example: ReadinessExample): FormState {
  return {
    name: example.workflow.name,
    intendedUsers: example.workflow.intendedUsers,
    targetEnvironment: example.workflow.targetEnvironment,
    capabilities: Object.fromEntries(
      CAPABILITY_KEYS.map((k) => [k, { status: example.capabilities[k]?.status ?? '', evidence: (example.capabilities[k]?.evidence ?? []).join('\n') }]),
    ) as FormState['capabilities'],
  };
}

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** Field id → message, in words; empty when the form can be sent. */
export function validateReadiness(form: FormState): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!form.name.trim()) errors.name = 'Required: name the workflow.';
  else if (form.name.trim().length > MAX_NAME) errors.name = `Too long: at most ${MAX_NAME} characters (now ${form.name.trim().length}).`;
  if (!form.intendedUsers) errors.intendedUsers = 'Required: choose who uses the workflow.';
  if (!form.targetEnvironment) errors.targetEnvironment = 'Required: choose sandbox or production.';
  for (const key of CAPABILITY_KEYS) {
    const c = form.capabilities[key];
    if (!c.status) errors[`${key}-status`] = 'Required: choose a status.';
    const ev = lines(c.evidence);
    if (ev.length > MAX_EVIDENCE_LINES) errors[`${key}-evidence`] = `Too many lines: at most ${MAX_EVIDENCE_LINES} (now ${ev.length}).`;
    else if (ev.some((l) => l.length > MAX_EVIDENCE_CHARS)) errors[`${key}-evidence`] = `A line is too long: at most ${MAX_EVIDENCE_CHARS} characters each.`;
  }
  return errors;
}

function toRequest(form: FormState) {
  return {
    workflow: { name: form.name.trim(), intendedUsers: form.intendedUsers, targetEnvironment: form.targetEnvironment },
    capabilities: Object.fromEntries(
      CAPABILITY_KEYS.map((k) => {
        const ev = lines(form.capabilities[k].evidence);
        return [k, ev.length ? { status: form.capabilities[k].status, evidence: ev } : { status: form.capabilities[k].status }];
      }),
    ),
  };
}

/** The JSON path of a server-side validation error (`$.capabilities.idempotency.status`) as a field id. */
export function fieldOfPath(path: string): string | null {
  const p = path.replace(/^\$\.?/, '').split('.');
  if (p[0] === 'workflow' && p[1]) return p[1];
  if (p[0] === 'capabilities' && p[1]) return `${p[1]}-${p[2]?.startsWith('evidence') ? 'evidence' : 'status'}`;
  return null;
}

/** The server's 400 errors as field id → message; an error no field holds is left to the page's notice. */
function fieldErrors(serverErrors: CheckFormProps['serverErrors']): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const e of serverErrors) {
    const field = fieldOfPath(e.path);
    if (field) fields[field] = e.message;
  }
  return fields;
}

export function ReadinessForm({ example, busy, serverErrors, onSubmit }: CheckFormProps) {
  const [form, setForm] = useState<FormState>(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const shown = { ...fieldErrors(serverErrors), ...errors };

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validateReadiness(form);
    setErrors(found);
    if (Object.keys(found).length) {
      // Take the reader to the first field that needs attention.
      const first = Object.keys(found)[0];
      document.getElementById(`readiness-${first}`)?.focus();
      return;
    }
    onSubmit(toRequest(form));
  }

  const setCap = (key: CapabilityKey, patch: Partial<{ status: string; evidence: string }>) =>
    setForm((f) => ({ ...f, capabilities: { ...f.capabilities, [key]: { ...f.capabilities[key], ...patch } } }));

  const err = (id: string) =>
    shown[id] ? (
      <p id={`readiness-${id}-error`} className="field-error">
        {shown[id]}
      </p>
    ) : null;
  /** The field's error (when it has one) first, then its help: what a screen reader says after the label. */
  const aria = (id: string, help?: string) => {
    const describedBy = [shown[id] ? `readiness-${id}-error` : null, help ?? null].filter(Boolean).join(' ');
    return { ...(shown[id] ? { 'aria-invalid': true as const } : {}), ...(describedBy ? { 'aria-describedby': describedBy } : {}) };
  };
  const count = Object.keys(shown).length;

  return (
    <form className="stack readiness-form" onSubmit={submit} noValidate aria-labelledby="readiness-form-title">
      <h2 id="readiness-form-title">Agent Payment Readiness Assessment</h2>
      <p className="muted">
        Declare the state of each capability of your payment workflow. Nothing is fetched or verified: the assessment classifies what you
        declare against the <a href={RUBRIC}>published rubric</a>. Evidence that names something a reader could check (an address, a
        file, a test, a command or a record) earns full credit; a plain statement earns less (<a href={EVIDENCE_KINDS}>how evidence is
        read</a>).
      </p>
      <div className="actions">
        <button type="button" className="button secondary" onClick={() => { setForm(fromExample(example as ReadinessExample)); setErrors({}); }}>
          Fill with an example
        </button>
        <button type="button" className="button secondary" onClick={() => { setForm(empty()); setErrors({}); }}>
          Clear
        </button>
      </div>
      {count ? (
        <p className="notice error" role="alert">
          {count === 1 ? 'One field needs' : `${count} fields need`} attention before the check can run.
        </p>
      ) : null}
      <fieldset>
        <legend>Workflow</legend>
        <div>
          <label htmlFor="readiness-name">Name</label>
          <input id="readiness-name" type="text" value={form.name} maxLength={MAX_NAME + 20} onChange={(e) => setForm({ ...form, name: e.target.value })} {...aria('name')} />
          {err('name')}
        </div>
        <div>
          <label htmlFor="readiness-intendedUsers">Who uses it</label>
          <select id="readiness-intendedUsers" value={form.intendedUsers} onChange={(e) => setForm({ ...form, intendedUsers: e.target.value })} {...aria('intendedUsers')}>
            <option value="">Choose…</option>
            <option value="humans">People</option>
            <option value="agents">AI agents</option>
            <option value="both">Both</option>
          </select>
          {err('intendedUsers')}
        </div>
        <div>
          <label htmlFor="readiness-targetEnvironment">Target environment</label>
          <select id="readiness-targetEnvironment" value={form.targetEnvironment} onChange={(e) => setForm({ ...form, targetEnvironment: e.target.value })} {...aria('targetEnvironment')}>
            <option value="">Choose…</option>
            <option value="sandbox">Sandbox</option>
            <option value="production">Production</option>
          </select>
          {err('targetEnvironment')}
        </div>
      </fieldset>
      <div className="capability-fields">
        {CAPABILITY_KEYS.map((key) => {
          const guide = CAPABILITY_GUIDE[key];
          const implemented = `readiness-${key}-implemented`;
          const example = `readiness-${key}-example`;
          return (
            <fieldset key={key} data-testid="capability-field">
              <legend>{capabilityTitle(key)}</legend>
              <div>
                <label htmlFor={`readiness-${key}-status`}>Status</label>
                <select id={`readiness-${key}-status`} value={form.capabilities[key].status} onChange={(e) => setCap(key, { status: e.target.value })} {...aria(`${key}-status`, implemented)}>
                  <option value="">Choose…</option>
                  {CAPABILITY_STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {statusLabel(s)}
                    </option>
                  ))}
                </select>
                {err(`${key}-status`)}
              </div>
              <div>
                <label htmlFor={`readiness-${key}-evidence`}>
                  Evidence <span className="hint">(optional; one per line, at most {MAX_EVIDENCE_LINES})</span>
                </label>
                <textarea id={`readiness-${key}-evidence`} rows={2} value={form.capabilities[key].evidence} onChange={(e) => setCap(key, { evidence: e.target.value })} {...aria(`${key}-evidence`, example)} />
                {err(`${key}-evidence`)}
              </div>
              <div className="capability-help">
                <p id={implemented}>
                  <strong>Implemented means:</strong> {guide.implemented}
                </p>
                <p id={example}>
                  <strong>Checkable evidence</strong> ({evidenceKindLabel(guide.kind).toLowerCase()}), for example: <code>{guide.example}</code>
                </p>
                <p>
                  <a href={RUBRIC} aria-label={`${capabilityTitle(key)} in the rubric`}>
                    In the rubric
                  </a>
                </p>
              </div>
            </fieldset>
          );
        })}
      </div>
      <div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Assessing…' : 'Run the assessment (1 call)'}
        </button>
      </div>
    </form>
  );
}
