import path from 'node:path';

/**
 * Where pulled bundles are kept (pull.ts): $XDG_STATE_HOME/toolgate/bundles, else
 * ~/.local/state/toolgate/bundles. State, not cache: TOOLGATE_CACHE=off does not remove the
 * last known good. A file of its own, without node:crypto: own-files.ts names it for every call.
 */
export function bundleStateDir(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'state');
  return path.join(base, 'toolgate', 'bundles');
}
