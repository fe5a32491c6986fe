/**
 * Export for one log, as every log writer turns it on (`--otlp URL` / TOOLGATE_OTLP_ENDPOINT,
 * see src/cli/policy-args.ts `logFor`). Loaded only when export is on: a hook process that
 * does not export pays nothing for it. The export thread (worker.ts) opens it; log writers
 * open threaded.ts.
 */
import { hostname } from 'node:os';
import { logsEndpoint, otlpSender } from './otlp.js';
import { LogShipper } from './shipper.js';

/** The collector names a fleet's logs apart by host and path. */
export function logNameOf(logPath: string): string {
  return `${hostname()}:${logPath}`;
}

/** Throws an Error saying why when `url` is no OTLP/HTTP endpoint. */
export function openExport(url: string, logPath: string, warn: (message: string) => void): LogShipper {
  const endpoint = logsEndpoint(url);
  const logName = logNameOf(logPath);
  return new LogShipper({ logPath, logName, endpoint, sender: otlpSender(endpoint, logName), warn });
}
