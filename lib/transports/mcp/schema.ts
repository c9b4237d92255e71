// JSON Schema from the checks' zod schemas, as MCP clients read it (tool input and output schemas, bazaar).
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A zod schema as the JSON Schema of a tool's input or output. Draft-07 without `$schema`: MCP clients validate
 * outputs with Ajv, whose default build knows draft-07 and fails to compile a schema that names the 2020-12
 * meta-schema.
 * @example jsonSchema(check.input, 'input') // { type: 'object', required: [...], … }
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  const generated = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete generated.$schema;
  return generated as Tool['inputSchema'];
}
