import { z } from 'zod';

/**
 * An MCP tool's JSON Schema -> the zod schema the pipeline validates input with. zod 4's
 * `z.fromJSONSchema` converts what it supports (types, properties, required, enums, bounds,
 * local $refs, ...), so the model hears about a bad input from toolgate before the server sees
 * it. What it cannot convert (if/then/else and other rarities) falls back to "any JSON object";
 * the server still validates such input itself. Either way the schema only rejects, it never
 * widens what the server accepts. Extra keys are kept, as JSON Schema allows them by default,
 * so the input the policy decides on is the input the server receives.
 */
export type SchemaSource = 'json-schema' | 'permissive';

const ANY_OBJECT = z.looseObject({});

export function inputSchemaOf(jsonSchema: unknown): { schema: z.ZodType; source: SchemaSource } {
  if (jsonSchema === null || typeof jsonSchema !== 'object' || Array.isArray(jsonSchema)) {
    return { schema: ANY_OBJECT, source: 'permissive' };
  }
  try {
    // The SDK has already checked that the root is `type: "object"` (MCP requires it).
    const schema = z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
    return { schema, source: 'json-schema' };
  } catch {
    return { schema: ANY_OBJECT, source: 'permissive' };
  }
}
