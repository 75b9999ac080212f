// Imported first by main.ts: OpenTelemetry must patch http, pg and ioredis before anything loads them.
import { startTracing } from '@corridor/telemetry';

startTracing('platform');
