import type { Word } from '../word.js';
import type { EffectSink } from './spec.js';

/**
 * `git -c key=value`: many configuration keys name programs git will run (core.pager,
 * core.fsmonitor, diff.external, alias.x=!cmd, ...). Known display-only keys are harmless; keys
 * that take a command have their value analyzed as shell code; anything else fails closed.
 */

const HARMLESS =
  /^(color\.|column\.|advice\.|core\.(quotepath|abbrev|autocrlf|safecrlf|eol|whitespace|ignorecase|precomposeunicode|commentchar|commentstring)$|diff\.(renames|renamelimit|algorithm|context|interhunkcontext|mnemonicprefix|noprefix|relative|statgraphwidth|indentheuristic|colormoved|colormovedws|wordregex|dirstat|submodule|ignoresubmodules|orderfile|suppressblankempty|srcprefix|dstprefix)$|log\.(date|decorate|abbrevcommit|follow|graphcolors|showroot|showsignature|mailmap|initialdecorationset|excludedecoration)$|format\.(pretty|graph|outputdirectory)$|grep\.(linenumber|column|patterntype|extendedregexp|fullname|fallbacktonoindex|threads)$|status\.(short|branch|showstash|showuntrackedfiles|relativepaths|aheadbehind|renames|renamelimit|submodulesummary|displaycommentprefix)$|pretty\.|blame\.(coloring|date|showemail|showroot|blankboundary|markunblamablelines|markignoredlines)$|i18n\.|user\.(name|email)$|init\.defaultbranch$|safe\.directory$|pager\.[a-z-]+$)/i;

/** Keys whose value is a shell command (or program) git runs. */
const COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|askpass|fsmonitor)|diff\.external|diff\.[^.]+\.(textconv|command)|merge\.[^.]+\.driver|filter\.[^.]+\.(clean|smudge|process)|sequence\.editor|gpg\.program|gpg\.[^.]+\.program|credential\.helper|credential\..+\.helper|uploadpack\.packobjectshook|remote\.[^.]+\.(uploadpack|receivepack)|man\.[^.]+\.(cmd|path)|man\.viewer|web\.browser|browser\.[^.]+\.(cmd|path)|difftool\.[^.]+\.cmd|mergetool\.[^.]+\.cmd|pager\.[^.]+|sendemail\.(sendmailcmd|smtpserver)|core\.hookspath|alias\..+)$/i;

export function gitConfigEffect(
  setting: Word | undefined,
  sink: EffectSink,
  who: string,
  fromEnv = false,
): void {
  if (setting === undefined) {
    sink.notUnderstood(`${who} without a setting`);
    return;
  }
  if (setting.expansions.length > 0 && !/^[A-Za-z0-9.-]+=/.test(setting.value)) {
    sink.notUnderstood(`${who} "${setting.raw}" sets configuration only known at run time`);
    return;
  }
  const eq = setting.value.indexOf('=');
  const key = (eq >= 0 ? setting.value.slice(0, eq) : setting.value).toLowerCase();
  const value = eq >= 0 ? setting.value.slice(eq + 1) : 'true';
  if (fromEnv) {
    if (HARMLESS.test(key) && !COMMAND_KEYS.test(key)) return;
    sink.opaque(`${who} ${key} takes its value from an environment variable the line does not show`);
    return;
  }
  if (COMMAND_KEYS.test(key)) {
    if (key.startsWith('pager.') && /^(false|true|cat|less|0|1)?$/.test(value)) return;
    if (key === 'core.pager' && /^(cat|less|)$/.test(value.trim())) return;
    if (key === 'core.fsmonitor' && /^(false|0|)$/.test(value.trim())) return;
    if (key === 'core.hookspath') {
      sink.opaque(`${who} core.hooksPath runs hooks from ${value}`);
      return;
    }
    const code = key.startsWith('alias.') ? value.replace(/^!/, '') : value;
    if (key.startsWith('alias.') && !value.startsWith('!')) {
      sink.notUnderstood(`${who} ${key} defines a git alias`);
      return;
    }
    sink.notUnderstood(`${who} ${key} makes git run "${code}"`);
    sink.runScript({ ...setting, value: code }, `${who} ${key}`, { appendsArgs: true });
    return;
  }
  if (HARMLESS.test(key)) return;
  if (
    /^(protocol\.|include\.|includeif\.|http\.|url\.|core\.(worktree|bare|gitproxy|repositoryformatversion))/.test(
      key,
    )
  ) {
    sink.opaque(`${who} ${key} can make git load other configuration or run programs`);
    return;
  }
  sink.notUnderstood(`${who} ${key} changes git's behaviour in ways not modelled`);
}
