/**
 * The transport: OpenTelemetry's own logs SDK and OTLP/HTTP exporter (JSON), so whatever
 * collector or SIEM an organisation runs receives toolgate's records as it receives anything
 * else. The exporter honours the standard variables itself (OTEL_EXPORTER_OTLP_HEADERS,
 * _TIMEOUT, _COMPRESSION and their _LOGS_ forms; OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
 * through the resource); its retries on 429/502/503/504 happen inside one send.
 *
 * The SDK's batch processor is not used: it drops what it could not send, and the shipper
 * (shipper.ts) must know which records reached the collector before it moves its cursor. So a
 * send emits the batch through a logger into a processor that only collects, and hands that
 * to the exporter, resolving when the collector acknowledged it.
 */
import { hostname } from 'node:os';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  LoggerProvider,
  type LogRecordProcessor,
  type ReadableLogRecord,
  type SdkLogRecord,
} from '@opentelemetry/sdk-logs';
import { ENGINE_VERSION } from '../version.js';
import type { AttributeValue } from './attributes.js';

export { logsEndpoint } from './endpoint.js';

export interface OtlpItem {
  eventName: string;
  /** The log record's body: a record's line, or a checkpoint's. */
  body: string;
  attributes: Record<string, AttributeValue>;
  /** When it happened (the record's ts), ms since the epoch. */
  timeMs: number;
  warn: boolean;
}

class Collect implements LogRecordProcessor {
  records: ReadableLogRecord[] = [];
  onEmit(record: SdkLogRecord): void {
    this.records.push(record);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Sender {
  /** Resolves once the collector acknowledged every item; rejects with why it did not. */
  send(items: OtlpItem[]): Promise<void>;
  shutdown(): Promise<void>;
}

export interface SenderOptions {
  /** One send's time limit, retries included. Default: OTEL_EXPORTER_OTLP_(LOGS_)TIMEOUT, else 10 s. */
  timeoutMillis?: number;
}

export function otlpSender(url: string, log: string, options: SenderOptions = {}): Sender {
  const resource = resourceFromAttributes({
    'service.name': 'toolgate',
    'service.version': ENGINE_VERSION,
    'host.name': hostname(),
  })
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ 'toolgate.log': log }));
  const collect = new Collect();
  const provider = new LoggerProvider({ resource, processors: [collect] });
  const logger = provider.getLogger('toolgate', ENGINE_VERSION);
  const exporter = new OTLPLogExporter({
    url,
    ...(options.timeoutMillis !== undefined && { timeoutMillis: options.timeoutMillis }),
  });
  let chain: Promise<void> = Promise.resolve();
  const sendNow = (items: OtlpItem[]): Promise<void> => {
    collect.records = [];
    for (const item of items) {
      logger.emit({
        eventName: item.eventName,
        body: item.body,
        attributes: item.attributes,
        timestamp: item.timeMs,
        severityNumber: item.warn ? SeverityNumber.WARN : SeverityNumber.INFO,
        severityText: item.warn ? 'WARN' : 'INFO',
      });
    }
    const records = collect.records;
    collect.records = [];
    return new Promise((resolve, reject) => {
      exporter.export(records, (result) => {
        // ExportResultCode.SUCCESS is 0.
        if (result.code === 0) resolve();
        else reject(result.error ?? new Error('the collector did not accept the export'));
      });
    });
  };
  return {
    // One send at a time: the collected records belong to the send that emitted them.
    send(items) {
      const next = chain.then(() => sendNow(items));
      chain = next.catch(() => {});
      return next;
    },
    async shutdown() {
      await chain;
      await exporter.shutdown();
      await provider.shutdown();
    },
  };
}
