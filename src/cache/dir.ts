import path from 'node:path';

/**
 * Where toolgate keeps what it can rebuild at any time (the hook's compiled code and parsed
 * policies): $XDG_CACHE_HOME/toolgate, else ~/.cache/toolgate; never inside the package or a
 * workspace. TOOLGATE_CACHE=off turns every cache off (undefined).
 */
export function userCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.TOOLGATE_CACHE === 'off' || env.TOOLGATE_CACHE === '0') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec ignores relative paths; so do we.
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'toolgate');
  const home =
    env.HOME !== undefined && path.isAbsolute(env.HOME)
      ? env.HOME
      : process.getBuiltinModule('node:os').homedir();
  return path.join(home, '.cache', 'toolgate');
}
