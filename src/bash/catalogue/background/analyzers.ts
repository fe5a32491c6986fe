import type { CommandSpec, CommandTable, EffectSink } from '../../commands/spec.js';
import type { Word } from '../../word.js';
import { joinWords, stdinScript } from '../wrappers/analyzers.js';

/**
 * Programs that run a command later or in a session of its own: at and batch (a queue that
 * runs shell code later), tmux and screen (a terminal session that outlives the call). The
 * command is analyzed like any other the line shows, so rules about it apply; the program
 * itself leaves work running after the call. Keys typed into a session (`tmux send-keys`,
 * `screen -X stuff`) are code only known when the session reads them.
 */

// ---------------------------------------------------------------- at, batch

/** `at [-q Q] [-f FILE] [-mMv] TIME` runs the shell code on stdin (or in FILE) at TIME. */
const at: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    if (args.some((w) => /^-[a-zA-Z]*[lc]$/.test(w.value)) || ctx.name === 'atq') return;
    if (args.some((w) => /^-[a-zA-Z]*[dr]$/.test(w.value)) || ctx.name === 'atrm') {
      sink.change(`${ctx.name} removes queued jobs`, true);
      return;
    }
    sink.change(`${ctx.name} queues a job`, false);
    sink.lingers(`${ctx.name} queues the commands to run later, after the call`);
    const file = args.findIndex((w) => w.value === '-f');
    if (file >= 0) {
      const f = args[file + 1];
      if (f) sink.read(f);
      sink.opaque(`${ctx.name} -f runs the commands in ${f?.raw ?? 'a file'}, which the line does not show`);
      return;
    }
    stdinScript(ctx, sink, `${ctx.name} runs the commands it reads from stdin`);
  },
};

// ---------------------------------------------------------------- tmux

/** tmux commands that run a shell command given as their last operand, and their value-taking flags. */
const TMUX_RUNS: Readonly<Record<string, string>> = {
  'new-session': 'cefFnstxyE',
  new: 'cefFnstxyE',
  'new-window': 'ceFnt',
  neww: 'ceFnt',
  'split-window': 'celtF',
  splitw: 'celtF',
  'respawn-pane': 'cet',
  respawnp: 'cet',
  'respawn-window': 'cet',
  respawnw: 'cet',
  'run-shell': 'cdt',
  run: 'cdt',
  'pipe-pane': 't',
  pipep: 't',
  'display-popup': 'bcdehsStTwxyE',
  popup: 'bcdehsStTwxyE',
};

/** tmux commands that only look: lists, queries, printing. */
const TMUX_READS =
  /^(ls|list-[a-z-]+|lsb|lsc|lscm|lsk|lsp|lsw|lss|has-session|has|show-options|show|show-window-options|showw|show-environment|showenv|show-buffer|showb|show-messages|showmsgs|info|server-info|start-server|start|display-message|display|capture-pane|capturep)$/;

/** tmux commands that type into a session or run tmux commands from elsewhere. */
const TMUX_HIDDEN =
  /^(send-keys|send|send-prefix|if-shell|if|source-file|source|command-prompt|confirm-before|confirm|bind-key|bind|set-hook|paste-buffer|pasteb|load-buffer|loadb)$/;

function tmuxCommand(words: readonly Word[], sink: EffectSink): void {
  const name = words[0];
  if (name === undefined) {
    sink.lingers('tmux starts a session that keeps running');
    sink.opaque('tmux starts a shell in a new session');
    return;
  }
  if (name.expansions.length > 0) {
    sink.unknownCode(`tmux command "${name.raw}" is only known at run time`);
    return;
  }
  const cmd = name.value;
  if (TMUX_READS.test(cmd)) {
    if (/^(capture-pane|capturep)$/.test(cmd) && !words.some((w) => /^-[a-zA-Z]*p/.test(w.value)))
      sink.change('tmux capture-pane fills a paste buffer', false);
    return;
  }
  if (TMUX_HIDDEN.test(cmd)) {
    sink.unknownCode(`tmux ${cmd} runs keys or tmux commands only known when the session reads them`);
    return;
  }
  const valued = TMUX_RUNS[cmd];
  if (valued === undefined) {
    sink.change(`tmux ${cmd} changes sessions, windows or panes`, /^kill-/.test(cmd));
    return;
  }
  let i = 1;
  while (i < words.length) {
    const v = words[i]!.value;
    if (v === '--') {
      i++;
      break;
    }
    if (words[i]!.dynamicStart || !v.startsWith('-') || v.length < 2) break;
    const letter = v[v.length - 1]!;
    i += v.length === 2 && valued.includes(letter) ? 2 : 1;
  }
  const rest = words.slice(i);
  sink.change(`tmux ${cmd} starts or changes a tmux session`, false);
  sink.lingers(`tmux ${cmd} runs the command in a session that outlives the call`);
  if (rest.length > 0) sink.runScript(joinWords(rest), `tmux ${cmd}`, { shown: true });
  else if (!/^(pipe-pane|pipep)$/.test(cmd)) sink.opaque(`tmux ${cmd} starts a shell`);
}

/** tmux [-2CDlNuVv] [-c CMD] [-f FILE] [-L NAME] [-S PATH] [-T FEATURES] [COMMAND [; COMMAND]...] */
const tmux: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    let i = 0;
    while (i < args.length && !args[i]!.dynamicStart && /^-/.test(args[i]!.value)) {
      const v = args[i]!.value;
      if (v === '--') {
        i++;
        break;
      }
      if (/^-[fLST]$/.test(v)) {
        if (v === '-f' && args[i + 1]) {
          sink.read(args[i + 1]!);
          sink.opaque(`tmux -f loads ${args[i + 1]!.raw}, which can run commands`);
        }
        i += 2;
        continue;
      }
      if (v === '-c') {
        const code = args[i + 1];
        if (code) sink.runScript(code, 'tmux -c', { shown: true });
        return;
      }
      if (/^-[a-zA-Z]*V/.test(v)) return;
      i++;
    }
    // Commands are separated by a `;` word (written `\;` or `';'` on the line).
    let start = i;
    for (let j = i; j <= args.length; j++) {
      if (j === args.length || args[j]!.value === ';') {
        if (j > start || start === i) tmuxCommand(args.slice(start, j), sink);
        start = j + 1;
      }
    }
  },
};

// ---------------------------------------------------------------- screen

/** screen's options that take a value (as separate words). */
const SCREEN_VALUE = /^-(c|e|h|p|s|S|t|T|Logfile|X|fn|fa)$/;

/** screen [-options] [COMMAND [ARGS]]: runs COMMAND in a session that can outlive the call. */
const screen: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    let i = 0;
    for (; i < args.length; i++) {
      const w = args[i]!;
      const v = w.value;
      if (w.dynamicStart || !v.startsWith('-')) break;
      if (/^-(ls|list|v|version|help)$/.test(v)) return;
      if (v === '-X') {
        sink.unknownCode(`${ctx.name} -X sends a command to a running session`);
        return;
      }
      if (v === '-c' && args[i + 1]) {
        sink.read(args[i + 1]!);
        sink.opaque(`${ctx.name} -c loads ${args[i + 1]!.raw}, which can run commands`);
      }
      if (v === '-Logfile' && args[i + 1])
        sink.write(args[i + 1]!, 'append', `${ctx.name} logs the session into ${args[i + 1]!.raw}`);
      if (/^-[a-zA-Z]*[rRxd]/.test(v) && !/^-(dm|dmS|Dm|DmS)$/.test(v))
        sink.unknownCode(`${ctx.name} ${v} attaches to a session whose shell runs what is typed there`);
      if (SCREEN_VALUE.test(v)) i++;
    }
    sink.change(`${ctx.name} starts a screen session`, false);
    sink.lingers(`${ctx.name} runs the command in a session that can outlive the call`);
    const inner = args.slice(i);
    if (inner.length > 0) sink.run(inner, ctx.name);
    else sink.opaque(`${ctx.name} starts a shell`);
  },
};

export const BACKGROUND: CommandTable = {
  at,
  batch: at,
  atq: at,
  atrm: at,
  tmux,
  screen,
};
