#!/usr/bin/env node
import { main } from './toolgate.js';

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
    process.exitCode = 1;
  },
);
