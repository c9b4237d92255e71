// WebMCP: the tools a rendered page offers agents in the browser, and the forms a tool could drive. The
// proposal followed is the W3C Web Machine Learning Community Group's WebMCP draft (CG-DRAFT, June 2026,
// webmachinelearning/webmcp `index.bs`): a page registers tools with `document.modelContext.registerTool({ name,
// title, description, inputSchema, execute, annotations }, { signal, exposedTo })`, and a browser refuses a tool
// whose name is empty, longer than 128 characters or holds anything but ASCII letters, digits, `_`, `-` and `.`,
// whose description is empty, or whose inputSchema cannot be serialised to JSON. Earlier drafts, still used by
// pages and polyfills, put the same object on `navigator.modelContext` with `provideContext({ tools })`,
// `clearContext()` and `unregisterTool(name)`; both are recorded. The declarative form of the proposal (its
// declarative API explainer) marks a `<form>` as a tool with `toolname` and `tooldescription` (and
// `toolautosubmit`); its controls' `name`s become the tool's parameters.
//
// The browser side (render/webmcp-recorder.ts) records registrations, bounded, and never calls a tool. This
// module turns what it recorded into `site.agentSurfaces.webMcp` and its findings, on the analysis thread.

import type { Finding } from './finding';

/** Tools recorded in the browser, at most; registrations past it are counted. */
export const WEBMCP_MAX_TOOLS = 50;
/** Forms read from the rendered DOM, at most (all are counted), and field names read per form. */
export const WEBMCP_MAX_FORMS = 20;
export const WEBMCP_MAX_FIELDS = 12;
/** Characters of a tool name kept: one past the proposal's 128, so a name too long is still seen as such. */
export const WEBMCP_NAME_CHARS = 129;
/** Characters of a tool description or a form's tool description kept. */
export const WEBMCP_TEXT_CHARS = 200;
/** Characters of a form field's name kept. */
export const WEBMCP_FIELD_CHARS = 64;
/** Characters of a form's action address kept. */
export const WEBMCP_ACTION_CHARS = 256;
/** Characters of an input schema's JSON read; a longer schema is not checked. */
export const WEBMCP_SCHEMA_CHARS = 16 * 1024;
/**
 * What the report lists (report-caps.ts cuts to these): a few tools, those with a problem first, and a few
 * forms, those declaring a tool first, with their first field names. The counts say how many there were, and
 * the findings name the tools; the report as a whole has a fixed size bound to stay under.
 */
export const WEBMCP_LISTED = { tools: 4, forms: 2, fields: 4, name: 64, text: 96, action: 128, field: 32 } as const;

/** One tool as the browser recorded it (render/webmcp-recorder.ts). */
export interface RecordedTool {
  name: string | null;
  description: string | null;
  /** The input schema as JSON, cut at WEBMCP_SCHEMA_CHARS + 1; null when the tool gave none. */
  inputSchema: string | null;
  /** Why the input schema could not be serialised (the browser refuses the tool); null when it could. */
  schemaError: string | null;
}

/** A form's method as HTML reads its `method` attribute (anything else is `get`). */
export type FormMethod = 'get' | 'post' | 'dialog';

/** One form of the rendered page as the browser read it. */
interface RecordedForm {
  toolName: string | null;
  toolDescription: string | null;
  action: string | null;
  method: FormMethod;
  fields: string[];
  fieldCount: number;
}

/** What the browser recorded while the page rendered. */
export interface WebMcpCapture {
  /** The browser had its own `modelContext`: the recorder stayed out, and imperative tools were not read. */
  native: boolean;
  tools: RecordedTool[];
  /** Registrations not kept because WEBMCP_MAX_TOOLS were already held. */
  toolsDropped: number;
  forms: RecordedForm[];
  formCount: number;
}

type ToolSource = 'imperative' | 'declarative';

/** One tool of `site.agentSurfaces.webMcp`. */
interface WebMcpTool {
  name: string;
  description: string;
  source: ToolSource;
  /** Whether its input schema is a JSON Schema object a tool can take; null when too large to check. */
  inputSchemaValid: boolean | null;
  /** Why a WebMCP browser refuses the tool or an agent cannot call it; null when nothing is wrong. */
  problem: string | null;
}

/** One form of `site.agentSurfaces.webMcp`: what a tool driving it would fill in. */
interface WebMcpForm {
  /** The `toolname` the form declares; null for a form that is not declared as a tool. */
  toolName: string | null;
  action: string | null;
  method: FormMethod;
  fields: string[];
  fieldCount: number;
}

/** `site.agentSurfaces.webMcp`: null when the page was not rendered. */
export interface WebMcp {
  status: 'found' | 'missing';
  /** How the tools were offered: through script, through form attributes, or both; null when none. */
  source: ToolSource | 'both' | null;
  /** False when the browser had WebMCP built in, so tools registered by script could not be read. */
  imperativeObserved: boolean;
  tools: WebMcpTool[];
  /** Tools registered, including those past the recorder's cap. */
  toolCount: number;
  forms: WebMcpForm[];
  formCount: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why the proposal's registerTool() refuses this name and description; null when it accepts them. */
function nameProblem(name: string | null, description: string | null): string | null {
  if (name === null || name === '') return 'has no name';
  if (name.length > 128) return 'has a name longer than 128 characters';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f || c === 0x2d || c === 0x2e;
    if (!ok) return 'has a name with characters other than ASCII letters, digits, "_", "-" and "."';
  }
  if (description === null || description.trim() === '') return 'has no description';
  return null;
}

/**
 * Whether a recorded input schema is one a tool can take: absent (the tool takes no input), or a JSON object
 * whose `type` is "object" (MCP, whose tools WebMCP tools become, requires it), whose `properties` maps each
 * name to a schema, and whose `required` lists names of those properties. Null: longer than the read, not checked.
 * @example schemaProblem({ name: 't', description: 'd', inputSchema: '{"type":"string"}', schemaError: null }) // [false, 'has an input schema whose type is "string", not "object"']
 */
export function schemaProblem(tool: RecordedTool): [boolean | null, string | null] {
  if (tool.schemaError !== null) return [false, `has an input schema that cannot be turned into JSON (${tool.schemaError})`];
  if (tool.inputSchema === null) return [true, null];
  if (tool.inputSchema.length > WEBMCP_SCHEMA_CHARS) return [null, null];
  let schema: unknown;
  try {
    schema = JSON.parse(tool.inputSchema);
  } catch {
    return [false, 'has an input schema that is not JSON'];
  }
  if (!isObject(schema)) return [false, 'has an input schema that is not a JSON Schema object'];
  if (schema.type !== 'object') return [false, `has an input schema whose type is ${schema.type === undefined ? 'missing' : JSON.stringify(schema.type).slice(0, 40)}, not "object"`];
  const props = schema.properties;
  if (props !== undefined && (!isObject(props) || Object.values(props).some((p) => !isObject(p) && typeof p !== 'boolean'))) {
    return [false, 'has input schema "properties" that are not a map of schemas'];
  }
  const req = schema.required;
  if (req !== undefined) {
    if (!Array.isArray(req) || req.some((r) => typeof r !== 'string')) return [false, 'has an input schema whose "required" is not a list of names'];
    const missing = isObject(props) ? req.filter((r) => !(r in props)) : req;
    if (missing.length > 0) return [false, `has an input schema that requires ${JSON.stringify(missing[0]).slice(0, 60)}, which it does not define`];
  }
  return [true, null];
}

/**
 * `site.agentSurfaces.webMcp` from what the browser recorded: the tools registered by script and those
 * declared by forms, each checked as a WebMCP browser and an agent would, and the page's forms.
 * @example webMcpOf({ native: false, tools: [], toolsDropped: 0, forms: [], formCount: 0 }).status // 'missing'
 */
export function webMcpOf(capture: WebMcpCapture): WebMcp {
  const tools: WebMcpTool[] = [];
  for (const t of capture.tools.slice(0, WEBMCP_MAX_TOOLS)) {
    const [inputSchemaValid, schemaIssue] = schemaProblem(t);
    tools.push({
      name: (t.name ?? '').slice(0, WEBMCP_NAME_CHARS),
      description: (t.description ?? '').slice(0, WEBMCP_TEXT_CHARS),
      source: 'imperative',
      inputSchemaValid,
      problem: nameProblem(t.name, t.description) ?? schemaIssue,
    });
  }
  const forms = capture.forms.slice(0, WEBMCP_MAX_FORMS);
  const declared = forms.filter((f) => f.toolName !== null);
  for (const f of declared) {
    // The browser builds a declared form's schema from its controls; a control without a name gives it nothing.
    tools.push({
      name: f.toolName!.slice(0, WEBMCP_NAME_CHARS),
      description: (f.toolDescription ?? '').slice(0, WEBMCP_TEXT_CHARS),
      source: 'declarative',
      inputSchemaValid: true,
      problem: nameProblem(f.toolName, f.toolDescription),
    });
  }
  // Listed with those that have a problem first: the report keeps only the first few.
  tools.sort((a, b) => Number(b.problem !== null) - Number(a.problem !== null));
  const imperative = capture.tools.length + capture.toolsDropped;
  const source = imperative > 0 && declared.length > 0 ? 'both' : imperative > 0 ? 'imperative' : declared.length > 0 ? 'declarative' : null;
  return {
    status: source === null ? 'missing' : 'found',
    source,
    imperativeObserved: !capture.native,
    tools,
    toolCount: imperative + declared.length,
    forms: [...declared, ...forms.filter((f) => f.toolName === null)].map((f) => ({
      toolName: f.toolName,
      action: f.action,
      method: f.method,
      fields: f.fields.slice(0, WEBMCP_MAX_FIELDS),
      fieldCount: f.fieldCount,
    })),
    formCount: capture.formCount,
  };
}

/**
 * The findings about a page's WebMCP tools: `webmcp-tools` (info) when it offers any, `webmcp-tool-invalid`
 * (medium) when a browser would refuse one or an agent could not call it. They score nothing: a page need not
 * offer tools, and rendering, which they need, does not run for every check.
 * @example webMcpFindings(webMcpOf(capture)).map((f) => f.id) // ['webmcp-tools']
 */
export function webMcpFindings(webMcp: WebMcp): Finding[] {
  const out: Finding[] = [];
  const invalid = webMcp.tools.filter((t) => t.problem !== null);
  if (invalid.length > 0) {
    out.push({
      id: 'webmcp-tool-invalid',
      severity: 'medium',
      rubric: null,
      pointsLost: 0,
      observed: invalid
        .slice(0, 4)
        .map((t) => `${t.source === 'declarative' ? 'form tool' : 'tool'} ${JSON.stringify(t.name.slice(0, 64))} ${t.problem}`)
        .join('; '),
      why: 'A browser with WebMCP refuses a tool whose name, description or input schema breaks the proposal, and an agent cannot fill in arguments its schema does not describe: the tool is offered but cannot be used.',
      fix: 'Give each tool a name of ASCII letters, digits, "_", "-" or "." (at most 128), a description, and an inputSchema of type "object" whose "required" names only properties it defines.',
    });
  }
  if (webMcp.status === 'found') {
    const bySource = (s: ToolSource) => webMcp.tools.filter((t) => t.source === s).map((t) => t.name.slice(0, 40));
    const parts = [
      bySource('imperative').length > 0 ? `registered by script: ${bySource('imperative').slice(0, 6).join(', ')}` : null,
      bySource('declarative').length > 0 ? `declared on forms: ${bySource('declarative').slice(0, 6).join(', ')}` : null,
    ].filter(Boolean);
    out.push({
      id: 'webmcp-tools',
      severity: 'info',
      rubric: null,
      pointsLost: 0,
      observed: `${webMcp.toolCount} WebMCP tool${webMcp.toolCount === 1 ? '' : 's'} (${parts.join('; ')})`,
      why: 'WebMCP tools let an agent in the browser act on the page through named functions with described inputs, instead of guessing from the screen. None is required.',
      fix: 'No change needed. Keep each tool\'s description and input schema in step with what it does.',
    });
  }
  return out;
}
