/** The download stack's view of the shared URL redaction (../redact): credentials never reach a log line. */
export { redactUrl } from '../shared/redact.js';
