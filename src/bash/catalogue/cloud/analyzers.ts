import type { CommandSpec, CommandTable, EffectSink } from '../../commands/spec.js';
import type { Word } from '../../word.js';

/**
 * Cloud, cluster, container and database CLIs: reads of remote state are network reads, other
 * verbs change remote state, and what runs inside containers or databases is not shown. The
 * copies they make are reported like cp's: local sources are read (`aws s3 cp .env s3://b`
 * meets a Read deny on .env), a local destination is written.
 */

const literal = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

/** Bucket and storage URLs (s3://, gs://, az://, https://...): not files here. */
const BUCKET = /^[a-z][a-z0-9+.-]*:\/\//i;

/** `SRC... DST` where `remote` tells which operands are elsewhere: local sources read, a local DST written. */
function copies(
  operands: readonly Word[],
  remote: (w: Word) => boolean,
  sink: EffectSink,
  who: string,
): void {
  operands.forEach((w, i) => {
    if (remote(w)) return;
    if (i === operands.length - 1 && operands.length > 1)
      sink.write(w, 'overwrite', `${who} writes ${w.raw}`);
    else sink.read(w);
  });
}

/** gh: the files `gist create`, `release upload` and `api -F key=@file` / `--input` send. */
function ghUploads(
  args: readonly Word[],
  words: readonly string[],
  operands: readonly Word[],
  sink: EffectSink,
): void {
  if (words[0] === 'gist' && /^(create|new|edit)$/.test(words[1] ?? ''))
    for (const w of operands.slice(2)) if (w.value !== '-') sink.read(w);
  if (words[0] === 'release' && /^(upload|create)$/.test(words[1] ?? ''))
    for (const w of operands.slice(3)) sink.read({ ...w, value: w.value.replace(/#.*$/s, '') });
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    const next = args[i + 1];
    if ((v === '-F' || v === '--field') && next) {
      const m = /^[^=]*=@(.+)$/s.exec(next.value);
      if (m && m[1] !== '-') sink.read({ ...next, value: m[1]! });
    } else if (v === '--input' && next && next.value !== '-') sink.read(next);
    else if (v.startsWith('--input=')) sink.read({ ...args[i]!, value: v.slice(8) });
  }
}

/** gsutil: `cp`, `mv`, `rsync` copy between here and buckets; `ls`, `cat`, `du`, `stat` read. */
const gsutil: CommandSpec = {
  analyze(ctx, sink) {
    const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
    const sub = operands[0]?.value;
    if (sub === undefined || /^(version|help)$/.test(sub)) return;
    if (/^(cp|mv|rsync)$/.test(sub)) {
      copies(operands.slice(1), (w) => BUCKET.test(w.value), sink, `${ctx.name} ${sub}`);
      sink.network(`${ctx.name} ${sub} copies to or from cloud storage`, true);
      return;
    }
    const reads = /^(ls|cat|du|stat|hash)$/.test(sub);
    sink.network(`${ctx.name} ${sub} ${reads ? 'reads' : 'changes'} cloud storage`, !reads);
  },
};

/** gh: reads of PRs/issues/runs are network reads; `gh api` sends with -X or fields; the rest changes things. */
const GH_READS =
  /^(pr (view|list|diff|checks|status)|issue (view|list|status)|run (view|list|watch)|workflow (list|view)|repo (view|list)|release (view|list)|auth status|search \w+|gist (view|list)|label list|cache list|ruleset (list|view)|status|browse)$/;
const gh: CommandSpec = {
  analyze(ctx, sink) {
    const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
    const words = operands.map((w) => w.value);
    const key = words.slice(0, 2).join(' ');
    ghUploads(ctx.args, words, operands, sink);
    if (words[0] === 'api') {
      const mutating = ctx.args.some(
        (w) =>
          /^(-X|--method)$/.test(w.value) ||
          /^--method=/.test(w.value) ||
          /^(-f|-F|--field|--raw-field|--input)$/.test(w.value),
      );
      const method = ctx.args[ctx.args.findIndex((w) => /^(-X|--method)$/.test(w.value)) + 1]?.value;
      sink.network(
        `gh api ${mutating && method !== 'GET' ? 'sends a request that changes data' : 'reads from GitHub'}`,
        mutating && method !== 'GET',
      );
      return;
    }
    if (GH_READS.test(key) || GH_READS.test(words[0] ?? '')) {
      sink.network(`gh ${key} reads from GitHub`, false);
      return;
    }
    sink.network(`gh ${key} changes things on GitHub`, true);
  },
};

/** Cluster and cloud CLIs: reads are network reads; other verbs change remote state. */
function cloud(readVerbs: RegExp, position: 'first' | 'last'): CommandSpec {
  return {
    analyze(ctx, sink) {
      const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
      const words = operands.map((w) => w.value);
      // `kubectl cp SRC DST`: `[namespace/]pod:path` is in the cluster, anything else here.
      if (words[0] === 'cp')
        copies(operands.slice(1), (w) => /^[^/]*:/.test(w.value), sink, `${ctx.name} cp`);
      const verb =
        position === 'first'
          ? words[0]
          : (words.find((w, i) => i > 0 && /^[a-z]+(-[a-z]+)*$/.test(w) && i === words.length - 1) ??
            words[words.length - 1]);
      const reads = verb !== undefined && readVerbs.test(verb);
      if (words.length === 0 || reads) {
        sink.network(`${ctx.name} ${words.slice(0, 3).join(' ')} reads remote state`, false);
        return;
      }
      sink.network(`${ctx.name} ${words.slice(0, 3).join(' ')} changes remote state`, true);
    },
  };
}

const kubectl = cloud(
  /^(get|describe|logs|top|explain|version|cluster-info|api-resources|api-versions|auth|config|diff|events|wait)$/,
  'first',
);

/** aws/gcloud/az: the operation verb decides (describe-*, list-*, get-* read). */
const awsLike: CommandSpec = {
  analyze(ctx, sink) {
    const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
    const words = operands.map((w) => w.value);
    // `aws s3 cp|mv|sync`, `gcloud storage cp|mv|rsync`: bucket URLs are remote, other operands local.
    const copy = words.findIndex(
      (w, i) => /^(cp|mv|sync|rsync)$/.test(w) && /^(s3|storage|blob|file)$/.test(words[i - 1] ?? ''),
    );
    if (copy >= 0)
      copies(operands.slice(copy + 1), (w) => BUCKET.test(w.value), sink, `${ctx.name} ${words[copy]}`);
    const readVerb =
      words.some((w) => /^(describe|list|get|show|ls|head|wait|help|version|info|whoami)(-|$)/.test(w)) &&
      !words.some((w) =>
        /^(delete|remove|rm|put|create|update|terminate|destroy|set|attach|detach|cp|mv|sync|run|start|stop|reboot|modify|deploy|apply)(-|$)/.test(
          w,
        ),
      );
    sink.network(
      `${ctx.name} ${words.slice(0, 3).join(' ')} ${readVerb ? 'reads' : 'changes'} cloud resources`,
      !readVerb,
    );
  },
};

const docker: CommandSpec = {
  analyze(ctx, sink) {
    const remoteDaemon = ctx.args.some((w) => /^(-H|--host|--context|-c)(=|$)/.test(w.value));
    const words = ctx.args.filter((w) => !w.value.startsWith('-')).map((w) => w.value);
    const sub = words[0] === 'container' || words[0] === 'image' ? `${words[0]} ${words[1] ?? ''}` : words[0];
    if (remoteDaemon) sink.network(`${ctx.name} talks to a remote daemon`, true);
    if (sub === undefined) return;
    if (
      /^(ps|images|inspect|logs|version|info|stats|top|history|port|diff|search|container (ls|list|inspect|logs|top|port|diff|stats)|image (ls|list|inspect|history))$/.test(
        sub,
      )
    ) {
      // The client asks a daemon that runs as root (its socket, or DOCKER_HOST), as kubectl get
      // asks a cluster: remote state, not a read of local files (the oracle saw docker ps connect).
      if (sub === 'search') sink.network(`${ctx.name} search queries a registry`, false);
      else sink.network(`${ctx.name} ${sub} asks the container daemon for its state`, false);
      if (sub === 'logs' && ctx.args.some((w) => /^(-f|--follow)$/.test(w.value)))
        sink.lingers('docker logs -f keeps following');
      return;
    }
    if (
      /^(rm|rmi|kill|stop|prune|system|volume|network|container (rm|prune|kill|stop)|image (rm|prune))/.test(
        sub,
      )
    ) {
      sink.change(`${ctx.name} ${sub} removes or stops containers, images or data`, true);
      return;
    }
    if (/^(push|login|logout)$/.test(sub)) {
      sink.network(`${ctx.name} ${sub} sends to a registry`, true);
      return;
    }
    if (sub === 'cp' || sub === 'container cp') {
      // `CONTAINER:PATH` is inside a container, anything else here.
      const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
      copies(operands.slice(sub === 'cp' ? 1 : 2), (w) => /^[^/]+:/.test(w.value), sink, `${ctx.name} cp`);
      sink.change(`${ctx.name} cp copies files into or out of a container`, true);
      return;
    }
    sink.opaque(`${ctx.name} ${sub} runs or builds containers whose contents the line does not show`);
  },
};

const terraform: CommandSpec = {
  analyze(ctx, sink) {
    const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
    if (sub === 'version' || sub === undefined) return;
    if (sub === 'fmt') {
      if (ctx.args.some((w) => /^-check/.test(w.value))) return;
      sink.write(literal('(terraform files)'), 'modify', `${ctx.name} fmt rewrites files`);
      return;
    }
    const destroys = /^(destroy|apply|import|taint|untaint|state|force-unlock|workspace|refresh)$/.test(sub);
    sink.network(`${ctx.name} ${sub} talks to providers and state backends`, destroys);
    sink.opaque(`${ctx.name} ${sub} runs provider plugins`);
  },
};

export const CLOUD: CommandTable = {
  gh,
  kubectl,
  oc: kubectl,
  helm: cloud(/^(list|ls|status|get|history|show|search|version|template|lint|env|repo)$/, 'first'),
  aws: awsLike,
  gcloud: awsLike,
  az: awsLike,
  gsutil,
  docker,
  podman: docker,
  terraform,
  tofu: terraform,
};
