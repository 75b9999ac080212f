export { createLogger, nestLogger, type LoggerOptions } from './logger';
export { toErrorBody, fromErrorReply, internalErrorBody } from './error-codec';
export { PrefixedServerNats, PrefixedClientNats, prefixSubject } from './prefixed-nats';
export { createServiceApp, runService, RpcErrorFilter, type ServiceAppOptions } from './service-app';
export { ServiceClient, MessagingModule, MESSAGING_OPTIONS, type MessagingOptions, type RequestOptions } from './service-client';
export { publishEvent, startDurableConsumer, type DurableConsumerOptions, type MessageMeta } from './jetstream';
export { consumeEvents, type EventConsumerOptions, type EventConsumerScope } from './event-consumers';
export { createProcessedStore, type ProcessedStore, type ProcessedStoreOptions } from './processed-store';
export { parseServiceConfig, type ServiceConfig } from './service-config';
export { advanceTestClock, fileOffsetClock, parseClock, parseClockOffset, TEST_CLOCK_FILE } from './test-clock';
export { consumerMetrics } from './jetstream';
export { ObservabilityModule, observedPart, postgresHealth, redisHealth } from './observability.module';
export { startHealthServer, processMetrics, type HealthServerOptions } from './health-server';
export { enableBoundedShutdown, parseShutdownTimeoutMs, DEFAULT_SHUTDOWN_TIMEOUT_MS, type BoundedShutdownOptions } from './shutdown';
export { natsMetrics } from './nats-metrics';
export { parseNatsAuth, inboxPrefixOf, natsConnectionOptions, type NatsAuth } from './nats-auth';
export {
  busUsers,
  busServices,
  busPermissions,
  busPassword,
  busPasswordVariable,
  natsServerConfig,
  type BusUser,
  type BusUserName,
  type BusService,
  type BusPermissions,
  type NatsServerConfigOptions,
} from './bus-permissions';
