import { z } from 'zod';
import { MODES } from './mode.js';

/**
 * The one schema of a policy file. Two forms are accepted:
 *  - toolgate's own (`version: 1`), validated strictly: an unknown key is an error;
 *  - Claude Code's settings (`.claude/settings.json` and friends): only `permissions` is read,
 *    so an existing settings file loads unchanged; the rest of it belongs to Claude Code.
 */
const modeName = z.enum([...MODES, 'bypass', 'manual']);
const ruleList = z.union([z.string(), z.array(z.string())]);
const pathList = z.array(z.string().min(1));

const ruleEntry = z
  .strictObject({
    id: z.string().min(1).optional(),
    allow: ruleList.optional(),
    ask: ruleList.optional(),
    deny: ruleList.optional(),
    reason: z.string().optional(),
    when: z.string().min(1).optional(),
  })
  .refine((r) => [r.allow, r.ask, r.deny].filter((x) => x !== undefined).length === 1, {
    message: 'a rule needs exactly one of allow, ask or deny',
  });

export const permissionsSchema = z.strictObject({
  allow: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
  defaultMode: modeName.optional(),
  additionalDirectories: pathList.optional(),
  disableBypassPermissionsMode: z.literal('disable').optional(),
  disableAutoMode: z.literal('disable').optional(),
});

export const sandboxSchema = z.strictObject({
  timeoutMs: z.number().int().positive().optional(),
  maxTimeoutMs: z.number().int().positive().optional(),
  maxOutputChars: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().positive().optional(),
  network: z.boolean().optional(),
  os: z.enum(['auto', 'required', 'off']).optional(),
  /** Hooks answer allowed and asked Bash calls rewritten to run inside `toolgate jail`. */
  enforce: z.boolean().optional(),
  env: z.strictObject({ allow: z.array(z.string().min(1)) }).optional(),
  write: z.strictObject({ allow: pathList.optional(), deny: pathList.optional() }).optional(),
  read: z.strictObject({ allow: pathList.optional(), deny: pathList.optional() }).optional(),
});

const testCase = z.strictObject({
  name: z.string().optional(),
  tool: z.string().min(1),
  input: z.unknown(),
  cwd: z.string().optional(),
  mode: modeName.optional(),
  expect: z.enum(['allow', 'ask', 'deny']),
  /** A regular expression the decision's reason must match. */
  reason: z.string().optional(),
});

export const autoSchema = z.strictObject({
  classifier: z.enum(['offline', 'anthropic']).optional(),
  model: z.string().min(1).optional(),
  prompt: z.string().min(1).optional(),
  baseURL: z.string().url().optional(),
  maxTokens: z.number().int().positive().optional(),
});

export const toolgatePolicySchema = z.strictObject({
  version: z.literal(1, { message: 'version must be 1' }),
  /** Policies this one builds on, as a lower layer: `builtin:default`, `builtin:strict`, or a file path. */
  extends: z.union([z.string(), z.array(z.string())]).optional(),
  mode: modeName.optional(),
  workspace: z
    .strictObject({ roots: pathList.optional(), additionalDirectories: pathList.optional() })
    .optional(),
  rules: z.array(ruleEntry).optional(),
  permissions: permissionsSchema.optional(),
  sandbox: sandboxSchema.optional(),
  auto: autoSchema.optional(),
  /**
   * What the built-in guards answer (default ask; the strictest layer wins). criticalDelete:
   * rm/rmdir of /, a top-level directory, home, or the workspace and its parents. pipeToShell:
   * a line that downloads and runs what it downloaded (`curl ... | sh`).
   */
  guards: z
    .strictObject({
      criticalDelete: z.enum(['ask', 'deny']).optional(),
      pipeToShell: z.enum(['ask', 'deny']).optional(),
    })
    .optional(),
  /** `false` in a user or managed file: the embedded default is not put under the discovered layers. */
  builtinDefault: z.literal(false).optional(),
  /** Honoured only in the managed layer. */
  lock: z
    .strictObject({ rulesOnly: z.boolean().optional(), disableBypass: z.boolean().optional() })
    .optional(),
  tests: z.array(testCase).optional(),
  /** Honoured only in the managed layer: a signed policy bundle to pull (src/bundle). */
  bundle: z
    .strictObject({
      url: z.string().regex(/^https?:\/\/[^\s]+$/, { message: 'must be an http:// or https:// URL' }),
      publicKey: z.string().min(1),
      pollSeconds: z.number().int().min(1).max(86_400).optional(),
    })
    .optional(),
});

/** Claude Code settings: `permissions` is ours to read; every other key is Claude Code's. */
export const claudeSettingsSchema = z.looseObject({ permissions: permissionsSchema });

export type ToolgatePolicyFile = z.infer<typeof toolgatePolicySchema>;
export type PermissionsBlock = z.infer<typeof permissionsSchema>;
export type SandboxBlock = z.infer<typeof sandboxSchema>;
export type AutoBlock = z.infer<typeof autoSchema>;
export type PolicyTestCase = z.infer<typeof testCase>;
