// The browser side of reading a page's WebMCP tools (the proposal and what is checked: ../webmcp.ts). Before
// the page's scripts run, RECORDER_SCRIPT gives each document a `document.modelContext` and a
// `navigator.modelContext` that only record: a registration keeps the tool's name, description and input
// schema (as JSON), cut to their caps, at most WEBMCP_MAX_TOOLS at a time, and never keeps or calls `execute`.
// A browser with WebMCP built in keeps its own objects (the recorder stays out and says so). Once the page
// settled, READ_EXPRESSION reads the records and the page's forms back, cut again: the page's scripts could have
// reached anything in the document, so nothing it hands back is trusted to be within bounds (compare.ts and
// the report caps check it once more).
//
// Both are plain JavaScript strings: they run in the page, and a function's source could carry helpers of
// whatever compiled this file.

import {
  WEBMCP_ACTION_CHARS,
  WEBMCP_FIELD_CHARS,
  WEBMCP_MAX_FIELDS,
  WEBMCP_MAX_FORMS,
  WEBMCP_MAX_TOOLS,
  WEBMCP_NAME_CHARS,
  WEBMCP_SCHEMA_CHARS,
  WEBMCP_TEXT_CHARS,
  type FormMethod,
  type WebMcpCapture,
} from '../webmcp';

// The hidden name the records are read through: a non-configurable, non-writable property of the window.
const HOOK = '__pacWebMcpRecords';
// Controls of a form read at most, so a form with a million inputs costs a bounded loop.
const FORM_CONTROLS_READ = 200;

/** Installed in every document before its scripts run (render.ts). */
export const RECORDER_SCRIPT = `(() => {
  const MAX_TOOLS = ${WEBMCP_MAX_TOOLS}, NAME = ${WEBMCP_NAME_CHARS}, TEXT = ${WEBMCP_TEXT_CHARS}, SCHEMA = ${WEBMCP_SCHEMA_CHARS + 1};
  const native = ('modelContext' in Document.prototype) || ('modelContext' in Navigator.prototype) || ('modelContext' in navigator);
  const tools = new Map();
  let dropped = 0;
  const text = (v, n) => (typeof v === 'string' ? v.slice(0, n) : null);
  const read = (tool) => {
    let name = null, description = null, inputSchema = null, schemaError = null;
    try { name = text(tool && tool.name, NAME); } catch (e) {}
    try { description = text(tool && tool.description, TEXT); } catch (e) {}
    try {
      const schema = tool ? tool.inputSchema : undefined;
      if (schema !== undefined && schema !== null) {
        const json = JSON.stringify(schema);
        if (typeof json === 'string') inputSchema = json.slice(0, SCHEMA);
        else schemaError = 'it serialises to nothing';
      }
    } catch (e) { schemaError = 'serialising it throws'; }
    return { name, description, inputSchema, schemaError };
  };
  const register = (tool) => {
    const record = read(tool);
    const key = record.name === null ? '' : record.name;
    if (tools.has(key)) return Promise.reject(new DOMException('A tool with this name is already registered.', 'InvalidStateError'));
    if (tools.size >= MAX_TOOLS) dropped++;
    else tools.set(key, record);
    return Promise.resolve(undefined);
  };
  const context = new EventTarget();
  const define = (name, value) => Object.defineProperty(context, name, { value, enumerable: true });
  define('registerTool', function registerTool(tool) { const p = register(tool); const name = tool && typeof tool.name === 'string' ? tool.name.slice(0, NAME) : ''; p.unregister = () => { tools.delete(name); }; return p; });
  define('unregisterTool', function unregisterTool(name) { tools.delete(typeof name === 'string' ? name.slice(0, NAME) : ''); });
  define('clearContext', function clearContext() { tools.clear(); });
  define('provideContext', function provideContext(ctx) {
    tools.clear();
    const list = ctx && Array.isArray(ctx.tools) ? ctx.tools : [];
    for (let i = 0; i < list.length && i < MAX_TOOLS * 2; i++) register(list[i]).catch(() => {});
  });
  let ontoolchange = null;
  Object.defineProperty(context, 'ontoolchange', { get: () => ontoolchange, set: (v) => { ontoolchange = v; }, enumerable: true });
  if (!native) {
    try { Object.defineProperty(Document.prototype, 'modelContext', { get() { return context; }, configurable: true, enumerable: true }); } catch (e) {}
    try { Object.defineProperty(Navigator.prototype, 'modelContext', { get() { return context; }, configurable: true, enumerable: true }); } catch (e) {}
  }
  Object.defineProperty(window, '${HOOK}', {
    value: () => ({ native, tools: Array.from(tools.values()).slice(0, MAX_TOOLS), toolsDropped: dropped }),
    configurable: false, writable: false, enumerable: false,
  });
})();`;

/** Evaluated in the page once it settled: the records and the page's forms, each cut to its cap. */
export const READ_EXPRESSION = `(() => {
  const MAX_TOOLS = ${WEBMCP_MAX_TOOLS}, NAME = ${WEBMCP_NAME_CHARS}, TEXT = ${WEBMCP_TEXT_CHARS}, SCHEMA = ${WEBMCP_SCHEMA_CHARS + 1};
  const MAX_FORMS = ${WEBMCP_MAX_FORMS}, MAX_FIELDS = ${WEBMCP_MAX_FIELDS}, ACTION = ${WEBMCP_ACTION_CHARS}, FIELD = ${WEBMCP_FIELD_CHARS}, CONTROLS = ${FORM_CONTROLS_READ};
  const str = (v, n) => (typeof v === 'string' ? v.slice(0, n) : null);
  const hook = window['${HOOK}'];
  const rec = typeof hook === 'function' ? hook() : { native: true, tools: [], toolsDropped: 0 };
  const tools = [];
  const list = rec && Array.isArray(rec.tools) ? rec.tools : [];
  for (let i = 0; i < list.length && i < MAX_TOOLS; i++) {
    const t = list[i] || {};
    tools.push({ name: str(t.name, NAME), description: str(t.description, TEXT), inputSchema: str(t.inputSchema, SCHEMA), schemaError: str(t.schemaError, 80) });
  }
  const elementsOf = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements').get;
  const attr = Element.prototype.getAttribute;
  const all = document.getElementsByTagName('form');
  const forms = [];
  for (let i = 0; i < all.length && i < MAX_FORMS; i++) {
    const form = all[i];
    const action = attr.call(form, 'action');
    let href = null;
    try { href = new URL(action === null ? '' : action, document.baseURI).href.slice(0, ACTION); } catch (e) {}
    const method = (attr.call(form, 'method') || 'get').toLowerCase();
    const fields = [];
    let fieldCount = 0;
    const controls = elementsOf.call(form);
    for (let j = 0; j < controls.length && j < CONTROLS; j++) {
      const c = controls[j];
      const type = (attr.call(c, 'type') || '').toLowerCase();
      const name = attr.call(c, 'name');
      if (!name || c.tagName === 'BUTTON' || c.tagName === 'FIELDSET' || c.tagName === 'OUTPUT' || ['hidden', 'submit', 'reset', 'button', 'image'].includes(type)) continue;
      fieldCount++;
      if (fields.length < MAX_FIELDS && !fields.includes(name.slice(0, FIELD))) fields.push(name.slice(0, FIELD));
    }
    forms.push({
      toolName: str(attr.call(form, 'toolname'), NAME),
      toolDescription: str(attr.call(form, 'tooldescription'), TEXT),
      action: href,
      method: ['get', 'post', 'dialog'].includes(method) ? method : 'get',
      fields,
      fieldCount,
    });
  }
  return { native: rec.native === true, tools, toolsDropped: typeof rec.toolsDropped === 'number' ? rec.toolsDropped : 0, forms, formCount: all.length };
})()`;

/**
 * What READ_EXPRESSION handed back, checked member by member: anything not of the recorded shape is dropped.
 * @example asWebMcpCapture({ native: false, tools: [], toolsDropped: 0, forms: [], formCount: 0 })?.native // false
 */
export function asWebMcpCapture(value: unknown): WebMcpCapture | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const s = (x: unknown, n: number) => (typeof x === 'string' ? x.slice(0, n) : null);
  const count = (x: unknown) => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : 0);
  const tools = (Array.isArray(v.tools) ? v.tools : []).slice(0, WEBMCP_MAX_TOOLS).map((t: Record<string, unknown>) => ({
    name: s(t?.name, WEBMCP_NAME_CHARS),
    description: s(t?.description, WEBMCP_TEXT_CHARS),
    inputSchema: s(t?.inputSchema, WEBMCP_SCHEMA_CHARS + 1),
    schemaError: s(t?.schemaError, 80),
  }));
  const forms = (Array.isArray(v.forms) ? v.forms : []).slice(0, WEBMCP_MAX_FORMS).map((f: Record<string, unknown>) => ({
    toolName: s(f?.toolName, WEBMCP_NAME_CHARS),
    toolDescription: s(f?.toolDescription, WEBMCP_TEXT_CHARS),
    action: s(f?.action, WEBMCP_ACTION_CHARS),
    method: (f?.method === 'post' || f?.method === 'dialog' ? f.method : 'get') as FormMethod,
    fields: (Array.isArray(f?.fields) ? f.fields : []).slice(0, WEBMCP_MAX_FIELDS).filter((x): x is string => typeof x === 'string').map((x) => x.slice(0, WEBMCP_FIELD_CHARS)),
    fieldCount: count(f?.fieldCount),
  }));
  return { native: v.native === true, tools, toolsDropped: count(v.toolsDropped), forms, formCount: count(v.formCount) };
}
