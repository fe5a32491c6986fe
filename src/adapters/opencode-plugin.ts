/**
 * The OpenCode plugin file toolgate ships (`toolgate init --agent opencode` writes it into
 * `.opencode/plugin/`, or the config dir's `plugin/`): opencode loads it in-process and calls its
 * `tool.execute.before` before every tool call. It hands the call to `toolgate hook --agent
 * opencode` (the protocol of opencode-hook.ts) and fails closed: a deny, an answer it cannot
 * read, toolgate missing, killed, timed out or exiting non-zero all throw, which blocks the call
 * and gives the model the reason. Only `{"decision": "allow"}` (or, with --agent-asks, "ask")
 * lets it run, with `args` merged into the call's arguments in enforced mode.
 */
export interface OpencodePluginOptions {
  /** The program and leading words that start toolgate; default `toolgate` on PATH. */
  readonly toolgate?: readonly string[];
  /** More `toolgate hook` arguments: `--policy F`, `--enforce`, `--log F`, `--agent-asks`. */
  readonly hookArgs?: readonly string[];
  /** Milliseconds before a decision that has not come back blocks the call. */
  readonly timeoutMs?: number;
}

export function opencodePlugin(options: OpencodePluginOptions = {}): string {
  const [program, ...lead] = options.toolgate ?? ['toolgate'];
  const argv = [...lead, 'hook', '--agent', 'opencode', ...(options.hookArgs ?? [])];
  return `// toolgate's OpenCode plugin: every tool call is decided by toolgate before it runs.
// Written by \`toolgate init --agent opencode\`; any failure blocks the call (fail closed).
import { spawn } from "node:child_process";

const PROGRAM = ${JSON.stringify(program ?? 'toolgate')};
const ARGS = ${JSON.stringify(argv)};
const TIMEOUT_MS = ${JSON.stringify(options.timeoutMs ?? 60_000)};

function decide(payload) {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let child;
    try {
      child = spawn(PROGRAM, ARGS, { stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      resolve({ error: "toolgate could not start: " + err.message });
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    child.on("error", (err) => { clearTimeout(timer); resolve({ error: "toolgate could not start: " + err.message }); });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        resolve({ error: stderr.trim() || "toolgate " + (signal ? "was killed (" + signal + ")" : "exited " + code) });
        return;
      }
      try {
        resolve({ answer: JSON.parse(stdout) });
      } catch {
        resolve({ error: "toolgate's answer is not JSON" });
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const Toolgate = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const { answer, error } = await decide({
      hook_event_name: "tool.execute.before",
      tool: input.tool,
      sessionID: input.sessionID,
      callID: input.callID,
      args: output.args,
      cwd: directory,
    });
    if (error !== undefined) throw new Error("toolgate blocked the call: " + error);
    const ok = answer !== null && typeof answer === "object" && (answer.decision === "allow" || answer.decision === "ask");
    if (!ok) throw new Error(typeof answer?.reason === "string" ? answer.reason : "toolgate blocked the call");
    if (answer.args !== null && typeof answer.args === "object") Object.assign(output.args, answer.args);
  },
});
`;
}
