#!/usr/bin/env node
import { main } from './toolgate.js';

// A crash anywhere in a hook must still block the call: Claude Code proceeds on any exit code but 2.
const failureCode = process.argv[2] === 'hook' ? 2 : 1;
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err) => {
    process.stderr.write(`toolgate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(failureCode);
  });
}

main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY === true,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`toolgate: ${String(err)}\n`);
    process.exitCode = failureCode;
  },
);
