/** What the deciding thread (threaded.ts) and the export thread (worker.ts) say to each other. */
import type { Checkpoint } from '../audit/checkpoint.js';
import type { ShipperStats } from './shipper.js';

export interface WorkerData {
  url: string;
  logPath: string;
}

export type ToWorker =
  | { type: 'appended'; ino: number; start: number; lines: string[]; checkpoint?: Checkpoint }
  | { type: 'close' };

export type FromWorker = { type: 'warn'; message: string } | { type: 'closed'; stats: ShipperStats };
