/** Prometheus metrics (prom-client) for the HTTP endpoint's `/metrics`. */
export { type Metrics, type MetricsOptions, type MetricsSnapshot, createMetrics, metricNames } from './metrics.js';
