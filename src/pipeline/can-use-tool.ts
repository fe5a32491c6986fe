import { createInterface } from 'node:readline';
import type { CanUseTool } from './tool.js';

/**
 * The two ways an ask is answered outside a program's own callback. Headless: nobody can be
 * asked, so the answer is a structured denial that tells the model why and what would help.
 * Terminal: the person sees the call rendered by its tool and the policy's reason, and answers
 * y or n; questions from concurrent calls wait their turn, and anything but "y" is a no.
 */
export const headlessCanUseTool: CanUseTool = async (tool, _input, _ctx, question) => ({
  behavior: 'deny',
  message: `nobody can approve ${tool.name} in this headless run (${question.decision.reason}); an allow rule in the policy, a PreToolUse hook, or an interactive session can`,
});

export function terminalCanUseTool(terminal: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}): CanUseTool {
  let turn: Promise<unknown> = Promise.resolve();
  return (tool, input, _ctx, question) => {
    const answer = turn.then(async () => {
      if (question.signal.aborted) return { behavior: 'deny' as const, message: 'the run was aborted' };
      let shown: string;
      try {
        shown = tool.renderToolUseMessage(input, { columns: 100 });
      } catch {
        shown = `${tool.name}(${JSON.stringify(input)})`;
      }
      const rl = createInterface({ input: terminal.input, output: terminal.output, terminal: false });
      try {
        const reply = await new Promise<string>((resolve) => {
          const onAbort = () => resolve('');
          question.signal.addEventListener('abort', onAbort, { once: true });
          rl.question(`\n${shown}\n  ${question.decision.reason}\nAllow this call? [y/N] `, (text) => {
            question.signal.removeEventListener('abort', onAbort);
            resolve(text);
          });
        });
        return /^\s*y(es)?\s*$/i.test(reply)
          ? { behavior: 'allow' as const, message: 'approved at the terminal' }
          : { behavior: 'deny' as const, message: 'the user declined at the terminal' };
      } finally {
        rl.close();
      }
    });
    turn = answer.catch(() => undefined);
    return answer;
  };
}
