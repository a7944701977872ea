/** Prometheus metrics (prom-client) for the HTTP endpoint's `/metrics`. */
export { createMetrics, metricNames, type Metrics, type MetricsOptions, type MetricsSnapshot } from './metrics.js';
