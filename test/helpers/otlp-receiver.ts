import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OTLP/HTTP logs receiver, standing in for a collector: it keeps every request body
 * it acknowledged (OTLP/JSON, as the exporter sends it), one per line of `requests`, which is
 * also the form a collector's file exporter writes (a witness for `toolgate verify`).
 * `mode`: 'ok' acknowledges, 'fail' answers 400 (not retried by the exporter), 'hold' keeps
 * the request unanswered until `release()`.
 */
export interface Receiver {
  url: string;
  port: number;
  requests: string[];
  mode: 'ok' | 'fail' | 'hold';
  /** Requests refused while in 'fail' mode. */
  refused: number;
  release(): void;
  /** Stops listening (connections are refused), and start() listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface ReceivedRecord {
  eventName: string;
  body: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  severityText?: string;
}

export async function startReceiver(): Promise<Receiver> {
  const held: (() => void)[] = [];
  let server: http.Server | undefined;
  const r: Receiver = {
    url: '',
    port: 0,
    requests: [],
    mode: 'ok',
    refused: 0,
    release() {
      for (const f of held.splice(0)) f();
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const answer = () => {
            if (req.method !== 'POST' || req.url !== '/v1/logs') {
              res.writeHead(404).end();
            } else if (r.mode === 'fail') {
              r.refused++;
              res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
            } else {
              r.requests.push(Buffer.concat(chunks).toString('utf8'));
              res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
            }
          };
          if (r.mode === 'hold') held.push(answer);
          else answer();
        });
      });
      const s = server;
      await new Promise<void>((resolve) => s.listen(r.port, '127.0.0.1', () => resolve()));
      r.port = (s.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${r.port}`;
    },
    async close() {
      r.release();
      await r.stop();
    },
  };
  await r.start();
  return r;
}

/** Every log record the receiver acknowledged, in the order it received them. */
export function receivedRecords(r: Receiver): ReceivedRecord[] {
  const out: ReceivedRecord[] = [];
  for (const text of r.requests) {
    const req = JSON.parse(text) as {
      resourceLogs: {
        resource?: { attributes?: KeyValue[] };
        scopeLogs: {
          logRecords: {
            eventName: string;
            body: { stringValue: string };
            attributes?: KeyValue[];
            severityText?: string;
          }[];
        }[];
      }[];
    };
    for (const rl of req.resourceLogs) {
      const resource = values(rl.resource?.attributes);
      for (const sl of rl.scopeLogs) {
        for (const lr of sl.logRecords) {
          out.push({
            eventName: lr.eventName,
            body: lr.body.stringValue,
            attributes: values(lr.attributes),
            resource,
            ...(lr.severityText !== undefined && { severityText: lr.severityText }),
          });
        }
      }
    }
  }
  return out;
}

interface KeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

function values(kvs: KeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of kvs ?? []) {
    const v = kv.value;
    out[kv.key] =
      v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
  }
  return out;
}
