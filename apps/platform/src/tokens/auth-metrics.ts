import { Counter, Gauge, Registry } from 'prom-client';
import type { FairGate } from './fair-gate';

/** The platform service's credential checks on GET /metrics (decision 0022). */
export class PlatformAuthMetrics {
  readonly registry = new Registry();

  readonly verifications = new Counter({
    name: 'corridor_platform_auth_verifications_total',
    help:
      'Secret verifications (scrypt) by outcome: valid, ' +
      'invalid (a wrong secret or an unknown client id, checked against a dummy hash).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  readonly refused = new Counter({
    name: 'corridor_platform_auth_verify_refused_total',
    help: 'Verifications refused before any scrypt because the queue was full: for one client id (429) or for all (503).',
    labelNames: ['scope'],
    registers: [this.registry],
  });

  constructor(gate: FairGate) {
    new Gauge({
      name: 'corridor_platform_auth_verify_running',
      help: 'Secret verifications running now.',
      registers: [this.registry],
      collect() {
        this.set(gate.load().running);
      },
    });
    new Gauge({
      name: 'corridor_platform_auth_verify_queued',
      help: 'Secret verifications waiting for a slot.',
      registers: [this.registry],
      collect() {
        this.set(gate.load().queued);
      },
    });
  }
}
