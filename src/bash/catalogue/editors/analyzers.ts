import type { CommandContext, CommandSpec, CommandTable, EffectSink } from '../../commands/spec.js';
import type { Word } from '../../word.js';

/**
 * Editors: never read-only (they can change the files they open, and run commands). What the
 * line shows of that is reported: the files opened (read, and maybe changed), and the commands
 * given on the command line (`vim -c ':!rm x'`, `emacs --eval ...`): a shell escape is analyzed
 * as shell code, anything else that can run code is code the line does not show.
 */

function openFiles(files: readonly Word[], sink: EffectSink, who: string): void {
  for (const f of files) {
    sink.read(f);
    sink.write(f, 'modify', `${who} can change ${f.raw}`);
  }
}

/** Ex commands that run nothing: quitting, simple settings, moving. */
const EX_HARMLESS =
  /^(q|qa|qall|quit|quita|quitall|cq|q!|qa!|qall!|quit!|quitall!|cq!|\d+|\$|noh|nohlsearch|syntax (on|off|enable)|syn (on|off|enable)|filetype (on|off|plugin on|indent on|plugin indent on)|(se|set|setl|setlocal)(\s+(no|inv)?(nu|number|rnu|relativenumber|ro|readonly|paste|list|wrap|hls|hlsearch|ic|ignorecase|scs|smartcase|spell|bin|binary|et|expandtab|nomodeline|ml|modeline|cul|cursorline)!?|\s+(ft|filetype|syn|syntax|ts|tabstop|sw|shiftwidth|sts|softtabstop|ff|fileformat|fenc|fileencoding|tw|textwidth)=[\w.-]*)+)$/;

/** One Ex command (`-c CMD`, `+CMD`, `--cmd CMD`). */
function exCommand(command: Word, sink: EffectSink, who: string): void {
  // Leading colons, blanks and `silent` / `silent!` change nothing about what runs.
  const v = command.value.replace(/^[\s:]+/, '').replace(/^sil(ent)?!?\s+/, '');
  if (command.expansions.length === 0 && EX_HARMLESS.test(v.trim())) return;
  // `!cmd`, `{range}!cmd` (filter lines through cmd), `r !cmd`, `w !cmd`: shell commands.
  const shell =
    /^(?:[\d.,$%';+-]*|[\d.,$%';+-]*(?:r|read|w|write)\s*)!(.*)$/s.exec(v) ??
    /^(?:te|ter|terminal)\s+(.*)$/s.exec(v);
  if (shell) {
    sink.runScript({ ...command, value: shell[1]! }, `${who} :!`);
    return;
  }
  sink.unknownCode(`${who} "${command.raw}" is an editor command, which can run shell commands`);
}

/** Options of vim that take a value in the next word. */
const VIM_VALUE =
  /^-(c|S|s|u|U|i|w|W|T|t)$|^--(cmd|startuptime|servername|remote[a-z-]*|log|socketid|windowid|gui-dialog-file)$/;

const vim: CommandSpec = {
  analyze(ctx, sink) {
    sink.opaque(`${ctx.name} is an editor: it can change files and run commands`);
    const who = ctx.name;
    const args = ctx.args;
    const files: Word[] = [];
    let options = true;
    // In Ex mode (`-e`, `-E`, `-es`), `-s` is "silent" and takes no script file.
    const exMode = ctx.name === 'ex' || args.some((w) => /^-[eE]s?$/.test(w.value));
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      const v = w.value;
      if (!options || w.dynamicStart) {
        files.push(w);
        continue;
      }
      if (v === '--') {
        options = false;
        continue;
      }
      if (v.startsWith('+')) {
        if (v.length > 1 && !/^\+\d+$/.test(v)) exCommand({ ...w, value: v.slice(1) }, sink, who);
        continue;
      }
      if (v === '-' || !v.startsWith('-')) {
        if (v !== '-') files.push(w);
        continue;
      }
      if (!VIM_VALUE.test(v) || (v === '-s' && exMode)) continue;
      const value = args[++i];
      if (value === undefined) break;
      switch (v) {
        case '-c':
        case '--cmd':
          exCommand(value, sink, `${who} ${v}`);
          break;
        case '-S':
          sink.read(value);
          sink.opaque(`${who} -S runs the commands in ${value.raw}`);
          break;
        case '-s':
          sink.read(value);
          sink.opaque(`${who} -s types the keys in ${value.raw}`);
          break;
        case '-u':
        case '-U':
          if (value.value !== 'NONE' && value.value !== 'NORC') {
            sink.read(value);
            sink.opaque(`${who} ${v} runs the configuration in ${value.raw}`);
          }
          break;
        case '-w':
        case '-W':
        case '--startuptime':
        case '--log':
          sink.write(value, v === '-w' ? 'append' : 'overwrite', `${who} ${v} writes ${value.raw}`);
          break;
        default:
          if (v.startsWith('--remote')) sink.unknownCode(`${who} ${v} sends commands to another editor`);
      }
    }
    openFiles(files, sink, who);
  },
};

/** emacs: `--eval`, `-f`, `-l` and `--script` run Lisp; operands are files it opens. */
const EMACS_VALUE =
  /^-(-?eval|-?execute|f|-?funcall|l|-?load|-?script|x|L|-?directory|-?chdir|-?insert|-?file|-?find-file|-?visit|-?user|u|-?display|d|-?init-directory|-?dump-file|-?color|-?name|-?title|T|-?font|fn|-?geometry|g|-?bg|-?fg|bd|-?border-color|-?terminal|t)$/;

const emacs: CommandSpec = {
  analyze(ctx, sink) {
    sink.opaque(`${ctx.name} is an editor: it can change files and run commands`);
    const who = ctx.name;
    const args = ctx.args;
    const files: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      const v = w.value;
      if (w.dynamicStart || (!v.startsWith('-') && !v.startsWith('+'))) {
        files.push(w);
        continue;
      }
      if (v.startsWith('+')) continue;
      const attached = /^(--[a-z-]+)=(.*)$/s.exec(v);
      const name = attached ? attached[1]! : v;
      if (!EMACS_VALUE.test(name)) continue;
      const value: Word | undefined = attached ? { ...w, value: attached[2]! } : args[++i];
      if (value === undefined) break;
      switch (name.replace(/^--/, '-')) {
        case '-eval':
        case '-execute':
        case '-f':
        case '-funcall':
          sink.unknownCode(`${who} ${name} ${value.raw} runs Lisp, which can run any command`);
          break;
        case '-l':
        case '-load':
        case '-script':
        case '-x':
          sink.read(value);
          sink.opaque(`${who} ${name} runs the Lisp in ${value.raw}`);
          break;
        case '-insert':
        case '-file':
        case '-find-file':
        case '-visit':
          files.push(value);
          break;
        case '-user':
        case '-u':
          sink.opaque(`${who} ${name} loads another user's init file`);
          break;
      }
    }
    openFiles(files, sink, who);
  },
};

/** nano: `-s PROG` / `--speller=PROG` runs a program on the text. */
const nano: CommandSpec = {
  analyze(ctx: CommandContext, sink) {
    sink.opaque(`${ctx.name} is an editor: it can change files`);
    const args = ctx.args;
    const files: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      const v = w.value;
      if (w.dynamicStart || !v.startsWith('-')) {
        if (!v.startsWith('+')) files.push(w);
        continue;
      }
      if (v === '-s' || v === '--speller') {
        const prog = args[++i];
        if (prog) sink.runScript(prog, `${ctx.name} ${v}`, { appendsArgs: true });
      } else if (v.startsWith('--speller=')) {
        sink.runScript({ ...w, value: v.slice(10) }, `${ctx.name} --speller`, { appendsArgs: true });
      } else if (
        /^-[A-Za-z]*[YorTJQCX]$/.test(v) ||
        /^--(syntax|operatingdir|quotestr|fill|tabsize|guidestripe|backupdir|wordchars|punct|brackets|matchbrackets)$/.test(
          v,
        )
      ) {
        i++;
      }
    }
    openFiles(files, sink, ctx.name);
  },
};

export const EDITORS: CommandTable = {
  vim,
  vi: vim,
  nvim: vim,
  vimdiff: vim,
  view: vim,
  ex: vim,
  rvim: vim,
  gvim: vim,
  emacs,
  nano,
  pico: nano,
};
