import { autocorrectCandidates, autocorrects } from '../../commands/git-autocorrect.js';
import { gitConfigEffect } from '../../commands/git-config.js';
import { subContext } from '../../commands/spec.js';
import { staticWord } from '../../word.js';
import type { CatalogueEntry } from '../entry.js';
import { GIT_SUBCOMMAND_OPTIONS } from './option-names.js';
import { runAlias, SUBCOMMANDS } from './subcommands.js';

/**
 * git: global options (data, below), then a subcommand read by its own analyzer
 * (subcommands.ts). `-c key=value` is configuration, and many keys name programs git runs
 * (git-config.ts); a subcommand git does not have may be an alias, which runs anything.
 */
export const GIT: CatalogueEntry = {
  name: 'git',
  summary:
    'version control: reading subcommands are read-only; the rest change refs, the index, files or remotes',
  options: {
    'C=': 'reads',
    // -c and --config-env set configuration; the analyzer reads each key (core.pager runs code).
    'c=': 'runs-code',
    'config-env=': 'runs-code',
    'exec-path?': 'runs-program',
    'html-path': 'harmless',
    'man-path': 'harmless',
    'info-path': 'harmless',
    'p|paginate': 'harmless',
    'P|no-pager': 'harmless',
    'no-replace-objects': 'harmless',
    'no-lazy-fetch': 'harmless',
    'no-optional-locks': 'harmless',
    'no-advice': 'harmless',
    bare: 'harmless',
    'git-dir=': 'reads',
    'work-tree=': 'reads',
    'namespace=': 'harmless',
    'super-prefix=': 'harmless',
    'literal-pathspecs': 'harmless',
    'glob-pathspecs': 'harmless',
    'noglob-pathspecs': 'harmless',
    'icase-pathspecs': 'harmless',
    'list-cmds=': 'harmless',
    'attr-source=': 'harmless',
    version: 'harmless',
    help: 'harmless',
  },
  unknownOptions: 'fail',
  parse: { permute: false },
  subcommandOptions: GIT_SUBCOMMAND_OPTIONS,
  shape: {
    kind: 'escape',
    why: 'about 150 subcommands, each with its own options; configuration keys and aliases that run programs',
    handles: ['c', 'config-env', 'exec-path'],
    analyze(ctx, sink, parsed) {
      const p = parsed!;
      for (const o of p.options) {
        if (o.id === 'c') gitConfigEffect(o.value, sink, 'git -c');
        else if (o.id === 'config-env') gitConfigEffect(o.value, sink, 'git --config-env', true);
        else if (o.id === 'exec-path' && o.value)
          sink.opaque(`git --exec-path=${o.value.raw} runs git programs from another directory`);
      }
      const rest = p.restIndex === undefined ? [] : ctx.args.slice(p.restIndex);
      const sub = rest[0];
      if (sub === undefined) return;
      if (sub.expansions.length > 0) {
        sink.notUnderstood(`git: the subcommand "${sub.raw}" is only known at run time`);
        return;
      }
      const analyzer = SUBCOMMANDS.get(sub.value);
      if (analyzer === undefined) {
        if (!runAlias(p.options, sub.value, rest.slice(1), sink))
          sink.opaque(`git ${sub.value} is not a known git command; it may be an alias that runs anything`);
        // help.autocorrect: git may run the known command most like it instead.
        const corrects = p.options.some(
          (o) =>
            o.id === 'c' &&
            o.value !== undefined &&
            /^help\.autocorrect(=|$)/i.test(o.value.value) &&
            (o.value.expansions.length > 0 ||
              autocorrects(o.value.value.split('=').slice(1).join('=') || 'true')),
        );
        if (corrects)
          for (const c of autocorrectCandidates(sub.value, SUBCOMMANDS.keys()))
            sink.run(
              [staticWord('git'), staticWord(c), ...rest.slice(1)],
              `git help.autocorrect ${sub.value}`,
            );
        return;
      }
      analyzer(subContext(ctx, `git ${sub.value}`, rest.slice(1)), sink);
    },
  },
  examples: {
    readOnly: [
      'git status --short',
      'git log --oneline -20',
      'git diff HEAD~1 -- src/app.ts',
      'git show HEAD:README.md',
      'git -C ../other log -1',
      'git -c color.ui=always diff',
      'git --exec-path',
      'git blame -L 10,20 src/app.ts',
      'git grep -n TODO',
      'git branch --list',
      'git remote -v',
      'git config --get user.name',
      'git stash list',
    ],
    notReadOnly: [
      'git add src/app.ts',
      'git commit -m "fix"',
      'git fetch origin',
      'git switch main',
      'git $SUB',
      'git diff --textconv',
    ],
    destructive: [
      'git push --force origin main',
      'git reset --hard HEAD~1',
      'git clean -fdx',
      'git checkout -- src/app.ts',
      'git -c core.pager="rm -rf ~" log',
      'git diff --output=README.md',
      'git frobnicate',
      'git -c alias.x="!rm -rf ~" x',
      'git branch -D feature',
    ],
  },
};
