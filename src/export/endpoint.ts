/** Kept apart from otlp.ts so the deciding thread can check a URL without loading the SDK. */

/** The logs endpoint for a URL given as toolgate's option: a bare origin gets OTLP's path. */
export function logsEndpoint(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`${url} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`${url}: OTLP/HTTP needs http: or https:`);
  if (u.pathname === '' || u.pathname === '/') u.pathname = '/v1/logs';
  return u.toString();
}
