import type { CliIO, Subcommand } from './io.js';
import { needsReexec, reexecWithIsolates } from './reexec.js';
import { runCommand } from './run-command.js';

/** Subcommands load lazily so that `toolgate hook` pays only for what a decision needs. */
const SUBCOMMANDS: Record<string, { summary: string; load: () => Promise<Subcommand>; isolates?: boolean }> =
  {
    demo: {
      summary: 'run a scripted agent session through the whole pipeline and show every decision',
      load: async () => (await import('./demo.js')).demoCommand,
      isolates: true,
    },
    init: {
      summary: 'start a project policy (.toolgate/policy.yaml) and, with --claude, hook it into Claude Code',
      load: async () => (await import('./init.js')).initCommand,
    },
    trust: {
      summary: "trust a project's own policy files (their allow rules, mode, ...) by recording their sha256",
      load: async () => (await import('./trust.js')).trustCommand,
    },
    hook: {
      summary:
        'Claude Code PreToolUse/PermissionRequest hook: hook JSON in, decision JSON out; any error blocks',
      load: async () => (await import('./hook.js')).hookCommand,
    },
    serve: {
      summary: 'answer decisions over HTTP from a warm process (Claude Code http hook, any language)',
      load: async () => (await import('./serve.js')).serveCommand,
    },
    'mcp-proxy': {
      summary: 'an MCP stdio server that guards another one: decides every tools/call, hides denied tools',
      load: async () => (await import('./mcp-proxy.js')).mcpProxyCommand,
    },
    check: {
      summary: 'decide whether a tool call may run under the policy (allow, ask or deny, and why)',
      load: async () => (await import('./check.js')).checkCommand,
    },
    classify: {
      summary: 'classify a Bash command line: read-only, concurrency-safe, destructive',
      load: async () => (await import('./classify.js')).classifyCommand,
    },
    catalogue: {
      summary: 'print what the classifier knows about commands: options and their effects, traits, examples',
      load: async () => (await import('./catalogue.js')).catalogueCommand,
    },
    exec: {
      summary: 'run tool_use blocks through the pipeline and print paired tool_result blocks',
      // Not `isolates`: a JavaScript call runs its isolate in a child (src/isolate/child-runner.ts),
      // and a policy with conditions restarts exec itself (policyFor).
      load: async () => (await import('./exec.js')).execCommand,
    },
    jail: {
      summary: 'decide a Bash command line again and run it inside the jail its decision names (deny: 126)',
      load: async () => (await import('./jail.js')).jailCommand,
    },
    verify: {
      summary: "check a decision log's hash chain; name the first bad record",
      load: async () => (await import('./verify.js')).verifyCommand,
    },
    replay: {
      summary: 'replay a decision log under a candidate policy: which decisions would change, and how',
      load: async () => (await import('./replay.js')).replayCommand,
    },
    'diff-policy': {
      summary:
        'before a rollout: decide logged or listed requests under two policies, list what loosens or tightens',
      load: async () => (await import('./diff-policy.js')).diffPolicyCommand,
    },
    test: {
      summary: "run a policy's own tests against the whole merged policy; report failures and rule coverage",
      load: async () => (await import('./test.js')).testCommand,
    },
    lint: {
      summary: 'find problems in policy files: unknown tools, shadowed or broad allows, duplicates, ...',
      load: async () => (await import('./lint.js')).lintCommand,
    },
    bundle: {
      summary:
        'build or verify a signed policy bundle (the policies a fleet pulls through a managed setting)',
      load: async () => (await import('./bundle.js')).bundleCommand,
    },
    report: {
      summary: 'write a self-contained HTML page about a decision log for auditors',
      load: async () => (await import('./report.js')).reportCommand,
    },
  };

function usage(): string {
  const lines = Object.entries(SUBCOMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return `usage: toolgate <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun "toolgate <command> --help" for a command's options.\n`;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    const { ENGINE_VERSION } = await import('../version.js');
    io.stdout.write(`${ENGINE_VERSION}\n`);
    return 0;
  }
  // Not a command anyone runs: the child node a JavaScript call's isolate lives in (exec).
  if (name === 'isolate-child' && process.send !== undefined) {
    const { serveIsolateRunner } = await import('../isolate/child-runner.js');
    return serveIsolateRunner(Number(rest[0]));
  }
  const sub = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (sub === undefined) {
    const { nearestName } = await import('./args.js');
    const near = nearestName(name, Object.keys(SUBCOMMANDS));
    const hint =
      near === undefined ? 'toolgate --help lists the commands' : `did you mean "toolgate ${near}"?`;
    io.stderr.write(`toolgate: unknown command "${name}" — ${hint}\n`);
    return 2;
  }
  return runCommand(
    name,
    async (args, cliIO) => {
      // The JavaScript tool runs in isolated-vm, which needs node restarted with --no-node-snapshot.
      if (sub.isolates && needsReexec(true, cliIO) && !args.includes('--help') && !args.includes('-h'))
        await reexecWithIsolates(cliIO);
      return (await sub.load())(args, cliIO);
    },
    rest,
    io,
  );
}
